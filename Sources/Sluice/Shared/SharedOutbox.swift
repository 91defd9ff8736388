import Foundation

/// The actions a node dispatched that its log has not acknowledged yet (thread-safe).
///
/// It is the shared lane's ``LaneOrderSource``: every action dispatched to the lane lands here,
/// and the appender takes everything queued since its last append as one batch. An action gets
/// its origin sequence when it first goes into a batch, and keeps it for every retry, so the log
/// applies it once. Numbers continue after the node's last entry in the log (see
/// ``noteOwn(_:)``), so a node restarted under the same name never reuses one.
final class SharedOutbox: LaneOrderSource {
  struct Pending: Sendable {
    /// Identifies the action in this outbox, for who waits for it.
    let local: UInt64
    let name: String
    let payload: Data
    let action: any Action
    var originSequence: UInt64?
  }

  private struct State {
    /// The next origin sequence.
    var next: UInt64 = 1
    var nextLocal: UInt64 = 1
    var pending: [Pending] = []
    /// Who waits for the log's number of which pending action (by `local`).
    var waiters: [UInt64: [CheckedContinuation<UInt64?, Never>]] = [:]
    /// The appender, waiting for something to append.
    var appender: CheckedContinuation<Void, Never>?
    var errors: ErrorChannel?
    var closed = false
  }

  let node: String
  let actions: SharedActions
  let progress: SharedProgress
  private let state = Guarded(State())

  init(node: String, actions: SharedActions, progress: SharedProgress) {
    self.node = node
    self.actions = actions
    self.progress = progress
  }

  /// Where the errors of the actions dispatched to the lane go (the dispatcher's channel).
  func attach(errors: ErrorChannel) {
    state.withLock { $0.errors = errors }
  }

  /// Queues `action` for the log. `waiter`, if any, gets the log's number for it once appended
  /// (registered in the same step, so it cannot miss it).
  ///
  /// - Throws: ``SharedLaneError`` when the action's type is not registered, or its encoding
  ///   fails; nothing is queued.
  func enqueue(_ action: any Action, waiter: CheckedContinuation<UInt64?, Never>? = nil) throws {
    let (name, payload) = try actions.encode(action)
    let (appender, closed) = state.withLock { state in
      let local = state.nextLocal
      state.nextLocal += 1
      state.pending.append(Pending(local: local, name: name, payload: payload, action: action))
      if let waiter, !state.closed { state.waiters[local, default: []].append(waiter) }
      defer { state.appender = nil }
      return (state.appender, state.closed)
    }
    appender?.resume()
    if closed { waiter?.resume(returning: nil) }
  }

  /// The log holds an entry of this node with origin sequence `number` (seen while applying
  /// it): new actions are numbered after it.
  func noteOwn(_ number: UInt64) {
    state.withLock { state in
      if number >= state.next { state.next = number &+ 1 }
    }
  }

  /// Queues `action` and returns the log's number for it once appended; `nil` when the outbox
  /// was closed first.
  ///
  /// - Throws: What ``enqueue(_:waiter:)`` throws.
  func enqueueAndWait(_ action: any Action) async throws -> UInt64? {
    var failure: (any Error)?
    let number = await withCheckedContinuation {
      (continuation: CheckedContinuation<UInt64?, Never>) in
      do {
        try enqueue(action, waiter: continuation)
      } catch {
        failure = error
        continuation.resume(returning: nil)
      }
    }
    if let failure { throw failure }
    return number
  }

  /// Everything queued and not acknowledged, in order; waits while there is nothing. Empty once
  /// the outbox is closed or the task cancelled.
  func nextBatch() async -> [Pending] {
    while true {
      let taken: [Pending]? = state.withLock { state in
        if state.closed || Task.isCancelled { return [] }
        guard !state.pending.isEmpty else { return nil }
        for index in state.pending.indices where state.pending[index].originSequence == nil {
          state.pending[index].originSequence = state.next
          state.next += 1
        }
        return state.pending
      }
      if let taken { return taken }
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let waits = state.withLock { state in
          guard !state.closed, state.pending.isEmpty else { return false }
          state.appender = continuation
          return true
        }
        if !waits { continuation.resume() }
      }
    }
  }

  /// The log took `batch` and numbered it `numbers`: removes it and wakes who waited.
  func acknowledge(_ batch: [Pending], numbers: [UInt64]) {
    let woken: [(CheckedContinuation<UInt64?, Never>, UInt64)] = state.withLock { state in
      state.pending.removeFirst(min(batch.count, state.pending.count))
      var woken: [(CheckedContinuation<UInt64?, Never>, UInt64)] = []
      for (pending, number) in zip(batch, numbers) {
        for waiter in state.waiters.removeValue(forKey: pending.local) ?? [] {
          woken.append((waiter, number))
        }
      }
      return woken
    }
    for (waiter, number) in woken { waiter.resume(returning: number) }
  }

  /// Stops taking batches; who waits for an acknowledgement gets `nil`.
  func close() {
    let (waiters, appender) = state.withLock { state in
      state.closed = true
      defer {
        state.waiters.removeAll()
        state.appender = nil
      }
      return (state.waiters.values.flatMap { $0 }, state.appender)
    }
    appender?.resume()
    for waiter in waiters { waiter.resume(returning: nil) }
  }

  /// The record of a pending action (numbered by ``nextBatch()``).
  func record(of pending: Pending) -> SharedLogRecord {
    SharedLogRecord(
      origin: node, originSequence: pending.originSequence ?? 0, name: pending.name,
      payload: pending.payload)
  }

  /// The number of actions waiting for the log.
  var pendingCount: Int { state.withLock { $0.pending.count } }

  /// Reports `error` on the dispatcher's channel.
  func report(_ error: any Error, action: (any Action)?) {
    state.withLock { $0.errors }?.receive(
      ErrorEvent(error: error, action: action, source: .sharedLane(node)))
  }

  // MARK: - LaneOrderSource

  func submit(_ action: any Action, file: StaticString, line: UInt) {
    do {
      try enqueue(action)
    } catch {
      report(error, action: action)
    }
  }

  func send(_ action: any Action) async {
    do {
      guard let sequence = try await enqueueAndWait(action) else { return }
      try await progress.waitUntilApplied(sequence)
    } catch {
      report(error, action: action)
    }
  }
}
