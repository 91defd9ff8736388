#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What Sluice knows about the calling thread: its identity, and how many lanes it is draining.
///
/// A thread that drains a lane, or delivers queued observations, must never block waiting for
/// another such thread (two of them could wait on each other forever), so a synchronous dispatch
/// and a cancellation check these depths before they wait.
enum ThreadContext {
  private static let depthKey = makeKey()
  private static let deliveryKey = makeKey()

  private static func makeKey() -> pthread_key_t {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    // Only fails when the process ran out of thread-specific keys (PTHREAD_KEYS_MAX is >= 128):
    // no user input reaches this.
    precondition(status == 0, "internal inconsistency: pthread_key_create failed (\(status))")
    return key
  }

  /// Whether the calling thread must not wait for other lanes or observers: it is draining a
  /// lane or delivering queued observations.
  static var mustNotWait: Bool {
    drainDepth > 0 || Int(bitPattern: pthread_getspecific(deliveryKey)) > 0
  }

  /// Runs `body` marked as a delivery of queued observations.
  static func delivering(_ body: () -> Void) {
    let depth = Int(bitPattern: pthread_getspecific(deliveryKey))
    pthread_setspecific(deliveryKey, UnsafeRawPointer(bitPattern: depth + 1))
    body()
    pthread_setspecific(deliveryKey, UnsafeRawPointer(bitPattern: depth))
  }

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
