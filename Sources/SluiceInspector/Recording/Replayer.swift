import Foundation
import Sluice

/// Runs the forks of `jump`, `toggle`, `detail` and `apply` (the recorded states over up to
/// the ring's capacity of records and, from a skipped record on, the stores' reducers) off the
/// Swift task pool: one at a time, on a thread of the inspector's own, started when a replay
/// comes and ended when none waits.
///
/// At most ``limit`` replays wait (16 for an inspector, for all its clients together); a
/// command that finds them all taken is answered with an error (`failed`) at once instead of
/// waiting behind them.
final class Replayer: Sendable {
  /// Whether the caller runs on a replay thread.
  static var isCurrentThread: Bool { Thread.current.threadDictionary[threadKey] != nil }
  private static let threadKey = "sluice.inspector.replay"

  /// How many replays may wait while one runs.
  let limit: Int
  private let state = Guarded((waiting: [@Sendable () -> Void](), draining: false))

  init(limit: Int = 16) {
    self.limit = max(1, limit)
  }

  /// `body`'s result, run on the replay thread; `nil` when ``limit`` replays wait already.
  func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result? {
    await withCheckedContinuation { continuation in
      let taken = submit { continuation.resume(returning: body()) }
      if !taken { continuation.resume(returning: nil) }
    }
  }

  /// Queues `job` for the replay thread (starting it when none runs); `false`, queuing
  /// nothing, when ``limit`` jobs wait already.
  func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
    let start = state.withLock { state -> Bool? in
      guard state.waiting.count < limit else { return nil }
      state.waiting.append(job)
      defer { state.draining = true }
      return !state.draining
    }
    guard let start else { return false }
    if start {
      Thread { [self] in
        Thread.current.threadDictionary[Replayer.threadKey] = true
        drain()
      }.start()
    }
    return true
  }

  /// Runs the jobs until none waits (the replay thread).
  private func drain() {
    while let job = state.withLock({ state -> (@Sendable () -> Void)? in
      guard !state.waiting.isEmpty else {
        state.draining = false
        return nil
      }
      return state.waiting.removeFirst()
    }) {
      job()
    }
  }
}
