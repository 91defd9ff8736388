import Foundation
import Sluice
import Synchronization

/// Carries the start of each reduction from a logging middleware's `before` hook to its `after`
/// hook.
///
/// A store calls `before` and then `after` for each action, both on its lane; in a transaction
/// it calls `before` for every store, then `after` for every store, in the same order. So the
/// starts form a queue: `after` takes the oldest one, even when it does not log (the logger's
/// level was raised in between), so that the queue never falls out of step. It is also bounded.
final class ReductionTimer: @unchecked Sendable {
  // @unchecked Sendable: `starts` is a lock box; `pending` is atomic; `clock` is immutable.
  private let starts = Guarded<[ContinuousClock.Instant]>([])
  private let pending = Atomic<Int>(0)
  private let clock = ContinuousClock()

  /// The most starts kept waiting for their `after`.
  static let capacity = 64

  /// Notes that a reduction starts now.
  func start() {
    let now = clock.now
    starts.withLock { starts in
      if starts.count == Self.capacity { starts.removeFirst() }
      starts.append(now)
      pending.store(starts.count, ordering: .relaxed)
    }
  }

  /// Whether a start waits for its `after`: one relaxed load, for the hooks' fast path.
  var hasPendingStart: Bool { pending.load(ordering: .relaxed) > 0 }

  /// The time since the oldest start, which it forgets; `nil` when there is none.
  func stop() -> Duration? {
    let now = clock.now
    let start: ContinuousClock.Instant? = starts.withLock { starts in
      guard !starts.isEmpty else { return nil }
      let first = starts.removeFirst()
      pending.store(starts.count, ordering: .relaxed)
      return first
    }
    return start.map { $0.duration(to: now) }
  }
}

extension Duration {
  /// This duration in milliseconds with three decimals, such as `"0.042 ms"`.
  var millisecondsDescription: String {
    let (seconds, attoseconds) = components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    let fraction = String(magnitude % 1000)
    let padding = String(repeating: "0", count: 3 - fraction.count)
    return "\(sign)\(magnitude / 1000).\(padding)\(fraction) ms"
  }
}
