import CSluiceSupport

/// What Sluice knows about the calling thread: its identity, and how many lanes it is draining.
///
/// A thread that drains a lane, or delivers queued observations, must never block waiting for
/// another such thread (two of them could wait on each other forever), so a synchronous dispatch
/// and a cancellation check these depths before they wait.
@usableFromInline
enum ThreadContext {
  /// Whether the calling thread must not wait for other lanes or observers: it is draining a
  /// lane or delivering queued observations.
  static var mustNotWait: Bool {
    sluice_get_drain_depth() > 0 || sluice_get_delivery_depth() > 0
  }

  /// Runs `body` marked as a delivery of queued observations.
  static func delivering(_ body: () -> Void) {
    let depth = sluice_get_delivery_depth()
    sluice_set_delivery_depth(depth + 1)
    body()
    sluice_set_delivery_depth(depth)
  }

  /// A number that identifies the calling thread while it runs; never 0, low bit clear: the
  /// address of the thread-local ``ReducerContext/depth`` (two instructions, no call).
  @inlinable
  static var currentID: UInt { UInt(bitPattern: sluice_reducer_depth_pointer()) }

  /// How many lanes the calling thread is draining right now (lanes nest when an observer
  /// dispatches into an idle lane).
  @inline(__always)
  static var drainDepth: Int { sluice_get_drain_depth() }

  @inline(__always)
  static func setDrainDepth(_ depth: Int) { sluice_set_drain_depth(depth) }
}
