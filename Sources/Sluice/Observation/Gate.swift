import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Guards the invocations of one observer so that `cancel()` means "never called again".
///
/// The atomic word is 0 when idle, the invoking thread's identifier while a call runs (thread
/// identifiers are aligned addresses, so their low bit is free), and has its low bit set once
/// cancelled. `cancel()` from another thread waits for a running call to end; from the invoking
/// thread itself (an observer cancelling its own subscription), or from a thread that is itself
/// running a lane or observers (two such threads could wait on each other), it returns at once:
/// no new call starts, and a call already running finishes on its own.
@usableFromInline
final class Gate: Sendable {
  private static let cancelledBit: UInt = 1
  private let word = Atomic<UInt>(0)

  @usableFromInline var isCancelled: Bool {
    word.load(ordering: .acquiring) & Gate.cancelledBit != 0
  }

  /// Runs `body` unless the gate was cancelled; returns whether it ran.
  @inline(__always)
  func run(_ body: () -> Void) -> Bool {
    let me = ThreadContext.currentID
    guard word.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
      return false
    }
    body()
    if !word.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged {
      word.store(Gate.cancelledBit, ordering: .releasing)
    }
    return true
  }

  /// Cancels the gate; returns once no call is running on another thread.
  func cancel() {
    let previous = word.bitwiseOr(Gate.cancelledBit, ordering: .acquiringAndReleasing).oldValue
    let invoker = previous & ~Gate.cancelledBit
    guard invoker != 0, invoker != ThreadContext.currentID, !ThreadContext.mustNotWait else {
      return
    }
    var spins = 0
    while word.load(ordering: .acquiring) & ~Gate.cancelledBit != 0 {
      spins += 1
      if spins < 100 { sched_yield() } else { usleep(50) }
    }
  }
}
