/// How far a node applied its shared log, and who waits for which entry (thread-safe).
final class SharedProgress: Sendable {
  private struct State {
    var applied: UInt64 = 0
    var stopped: SharedLaneError?
    var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
  }

  private let state = Guarded(State())

  /// The last entry this node applied.
  var applied: UInt64 { state.withLock { $0.applied } }

  /// Why the node stopped applying, if it did.
  var stopped: SharedLaneError? { state.withLock { $0.stopped } }

  /// Records that the node applied every entry up to `sequence`; wakes who waited for them.
  func advance(to sequence: UInt64) {
    let ready = state.withLock { state in
      state.applied = max(state.applied, sequence)
      let applied = state.applied
      let ready = state.waiters.filter { $0.sequence <= applied }
      state.waiters.removeAll { $0.sequence <= applied }
      return ready
    }
    for waiter in ready { waiter.continuation.resume() }
  }

  /// Records that the node stopped; every waiter gets `error`.
  func stop(_ error: SharedLaneError) {
    let waiting = state.withLock { state in
      if state.stopped == nil { state.stopped = error }
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiting { waiter.continuation.resume(throwing: error) }
  }

  /// Returns once the node applied `sequence`.
  ///
  /// - Throws: The ``SharedLaneError`` that stopped the node before it got there.
  func waitUntilApplied(_ sequence: UInt64) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      let outcome: Result<Void, SharedLaneError>? = state.withLock { state in
        if state.applied >= sequence { return .success(()) }
        if let stopped = state.stopped { return .failure(stopped) }
        state.waiters.append((sequence, continuation))
        return nil
      }
      if let outcome { continuation.resume(with: outcome) }
    }
  }
}
