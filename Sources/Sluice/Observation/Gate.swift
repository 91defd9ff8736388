import Dispatch
import Synchronization

/// Guards the invocations of one observer so that `cancel()` means "never called again".
///
/// The atomic word is 0 when idle, the invoking thread's identifier while a call runs (thread
/// identifiers are aligned addresses, so their low bit is free), and has its low bit set once
/// cancelled. `cancel()` from another thread waits for a running call to end — parked, not
/// spinning, and at most a bounded time; from the invoking thread itself (an observer cancelling
/// its own subscription), or from a thread that is itself running a lane or observers (two such
/// threads could wait on each other), it returns at once: no new call starts, and a call already
/// running finishes on its own.
///
/// The call path costs one compare-and-swap in and one out. Only a call that ends after its gate
/// was cancelled takes the slow path, which wakes the cancellers waiting for it.
@usableFromInline
final class Gate: Sendable {
  @usableFromInline static let cancelledBit: UInt = 1
  @usableFromInline let word = Atomic<UInt>(0)

  @usableFromInline init() {}

  /// Cancels the gate of an observer whose owner is gone, from inside its call (which does not
  /// wait for itself): the store sweeps the observer out when it next sees it.
  @usableFromInline @inline(never)
  func cancelForGoneOwner() {
    _ = cancel()
  }

  @inlinable var isCancelled: Bool {
    word.load(ordering: .acquiring) & Gate.cancelledBit != 0
  }

  /// Whether a call is running, on any thread.
  var isCalling: Bool {
    word.load(ordering: .acquiring) & ~Gate.cancelledBit != 0
  }

  /// Runs `body` unless the gate was cancelled; returns whether the gate is still open: `false`
  /// when it was cancelled before the call (which did not run) or during it.
  @inlinable @inline(__always)
  func run(_ body: () -> Void) -> Bool {
    let me = ThreadContext.currentID
    guard word.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
      return false
    }
    body()
    if !word.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged {
      endCancelledCall()
      return false
    }
    return true
  }

  /// The end of a call during which the gate was cancelled: marks the call over, then wakes the
  /// cancellers waiting for it.
  @usableFromInline @inline(never)
  func endCancelledCall() {
    word.store(Gate.cancelledBit, ordering: .releasing)
    GateWaiters.shared.wake(self)
  }

  /// Cancels the gate: no call starts after this returns.
  ///
  /// When a call is running on another thread, and the calling thread may wait (it is neither
  /// draining a lane nor delivering observations), waits for that call to end, at most `limit`.
  ///
  /// - Returns: `false` when a call was still running after `limit`; it finishes on its own.
  @discardableResult
  func cancel(waitingAtMost limit: Duration = Subscription.maximumCancelWait) -> Bool {
    let previous = word.bitwiseOr(Gate.cancelledBit, ordering: .acquiringAndReleasing).oldValue
    let invoker = previous & ~Gate.cancelledBit
    guard invoker != 0, invoker != ThreadContext.currentID, !ThreadContext.mustNotWait else {
      return true
    }
    return GateWaiters.shared.wait(for: self, atMost: limit)
  }
}

/// The cancellers parked until a running call of a gate ends, by gate.
///
/// One table for all gates: waiting is rare (a cancel that races with a call on another
/// thread), and it keeps every gate one atomic word.
private final class GateWaiters: @unchecked Sendable {
  // @unchecked Sendable: `waiting` is only touched under `lock`; semaphores are thread-safe.
  static let shared = GateWaiters()

  private let lock = InternalLock()
  private var waiting: [ObjectIdentifier: [DispatchSemaphore]] = [:]

  /// Parks the calling thread until `gate`'s running call ends, at most `limit`; returns
  /// whether it ended.
  func wait(for gate: Gate, atMost limit: Duration) -> Bool {
    let id = ObjectIdentifier(gate)
    let semaphore = DispatchSemaphore(value: 0)
    // Checked under the lock: a call that ends after this check wakes us, as `wake` takes the
    // lock after it marked the call over.
    let parked = lock.withLock {
      guard gate.isCalling else { return false }
      waiting[id, default: []].append(semaphore)
      return true
    }
    guard parked else { return true }
    let (seconds, attoseconds) = limit.components
    let deadline =
      DispatchTime.now()
      + .milliseconds(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
    if semaphore.wait(timeout: deadline) == .success { return true }
    // Timed out. If `wake` took the semaphore out already, the call ended meanwhile.
    return lock.withLock {
      guard let index = waiting[id]?.firstIndex(where: { $0 === semaphore }) else { return true }
      waiting[id]?.remove(at: index)
      if waiting[id]?.isEmpty == true { waiting.removeValue(forKey: id) }
      return false
    }
  }

  /// Wakes every canceller parked on `gate`, whose call just ended.
  func wake(_ gate: Gate) {
    let parked = lock.withLock { waiting.removeValue(forKey: ObjectIdentifier(gate)) }
    for semaphore in parked ?? [] { semaphore.signal() }
  }
}
