#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What Sluice knows about the calling thread: its identity, and how many lanes it is draining.
///
/// A thread that drains a lane must never block waiting for another lane (two such threads could
/// wait on each other forever), so a synchronous dispatch checks ``drainDepth`` before it waits.
enum ThreadContext {
  private static let depthKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    // Only fails when the process ran out of thread-specific keys (PTHREAD_KEYS_MAX is >= 128):
    // no user input reaches this.
    precondition(status == 0, "internal inconsistency: pthread_key_create failed (\(status))")
    return key
  }()

  /// A number that identifies the calling thread while it runs; never 0.
  @inline(__always)
  static var currentID: UInt {
    #if canImport(Darwin)
      return UInt(bitPattern: pthread_self())
    #else
      return UInt(pthread_self())
    #endif
  }

  /// How many lanes the calling thread is draining right now (lanes nest when an observer
  /// dispatches into an idle lane).
  @inline(__always)
  static var drainDepth: Int {
    Int(bitPattern: pthread_getspecific(depthKey))
  }

  @inline(__always)
  static func setDrainDepth(_ depth: Int) {
    pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth))
  }
}
