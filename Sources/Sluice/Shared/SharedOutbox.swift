import Foundation

/// The actions a node dispatched that its log has not acknowledged yet (thread-safe).
///
/// It is the shared lane's ``LaneOrderSource``: every action dispatched to the lane lands here,
/// and the appender takes what is queued in batches of at most `limits.batchCount` actions and
/// `limits.batchBytes` bytes. An action gets its origin sequence when it first goes into a batch
/// or into the outbox store, and keeps it for every retry and restart, so the log applies it
/// once. Numbers continue after the node's last entry in the log (see ``noteOwn(_:)``), so a
/// node restarted under the same name never reuses one. Its bound is `SharedLane`'s `pending`.
final class SharedOutbox: LaneOrderSource {
  struct Pending: Sendable {
    /// Identifies the action in this outbox, for who waits for it.
    let local: UInt64
    /// The record the log gets; its origin sequence is 0 until `numbered`.
    var record: SharedLogRecord
    /// The action, for error reports; `nil` for a record a previous run kept that this one
    /// cannot decode (it is appended all the same: another node may know it).
    let action: (any Action)?
    var numbered: Bool
    /// Whether the outbox store keeps it.
    var kept: Bool
  }

  private struct State {
    /// The next origin sequence.
    var next: UInt64 = 1
    var nextLocal: UInt64 = 1
    /// Whether actions may be numbered: once the node saw its own entries of the log.
    var numbering = false
    var pending: [Pending] = []
    /// Who waits for the log's number of which pending action (by `local`).
    var waiters: [UInt64: [CheckedContinuation<UInt64?, Never>]] = [:]
    /// Who waits until every action up to `through` is kept or appended.
    var durableWaiters: [(through: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    /// The appender, waiting for something to append.
    var appender: CheckedContinuation<Void, Never>?
    /// The sends waiting for room under the bound.
    var roomWaiters: [CheckedContinuation<Void, Never>] = []
    /// Whether the overflow past the bound was reported (until the outbox is back under it).
    var overflowReported = false
    var errors: ErrorChannel?
    var reporter: IssueReporter?
    var closed = false
    /// Why the log refuses this node's actions for good (an origin conflict), if it does.
    var failure: (any Error)?

    /// Numbers the pending actions that have no origin sequence yet, in order (they are the
    /// end of the queue: restored records come first and are numbered).
    mutating func number() {
      guard numbering else { return }
      var start = pending.endIndex
      while start > pending.startIndex, !pending[start - 1].numbered { start -= 1 }
      for index in start..<pending.endIndex {
        pending[index].record.originSequence = next
        pending[index].numbered = true
        next &+= 1
      }
    }

    /// Takes the durability waiters whose actions are all kept or appended.
    mutating func readyDurableWaiters() -> [CheckedContinuation<Bool, Never>] {
      guard !durableWaiters.isEmpty else { return [] }
      let firstUnsafe = pending.first { !$0.kept }?.local ?? .max
      let ready = durableWaiters.filter { $0.through < firstUnsafe }
      durableWaiters.removeAll { $0.through < firstUnsafe }
      return ready.map(\.continuation)
    }
  }

  let node: String
  let actions: SharedActions
  let progress: SharedProgress
  let limits: SharedLane.Limits
  private let state = Guarded(State())

  init(node: String, actions: SharedActions, progress: SharedProgress, limits: SharedLane.Limits) {
    self.node = node
    self.actions = actions
    self.progress = progress
    self.limits = limits
  }

  /// Where the errors of the actions dispatched to the lane go (the dispatcher's channel), and
  /// its issues.
  func attach(errors: ErrorChannel, reporter: IssueReporter) {
    state.withLock { state in
      state.errors = errors
      state.reporter = reporter
    }
  }

  /// Queues `action` for the log. `waiter`, if any, gets the log's number for it once appended
  /// (registered in the same step, so it cannot miss it).
  ///
  /// - Throws: ``SharedLaneError`` when the action's type is not registered, or its encoding
  ///   fails; the outbox's ``failure``; nothing is queued.
  func enqueue(
    _ action: any Action, waiter: CheckedContinuation<UInt64?, Never>? = nil,
    file: StaticString = #fileID, line: UInt = #line
  ) throws {
    let (name, payload) = try actions.encode(action)
    let record = SharedLogRecord(origin: node, originSequence: 0, name: name, payload: payload)
    let (appender, closed, overflow) = try state.withLock { state in
      if let failure = state.failure { throw failure }
      let local = state.nextLocal
      state.nextLocal += 1
      state.pending.append(
        Pending(local: local, record: record, action: action, numbered: false, kept: false))
      if let waiter, !state.closed { state.waiters[local, default: []].append(waiter) }
      var overflow: (Int, IssueReporter?)?
      if state.pending.count > limits.pending, !state.overflowReported {
        state.overflowReported = true
        overflow = (state.pending.count, state.reporter)
      }
      defer { state.appender = nil }
      return (state.appender, state.closed, overflow)
    }
    appender?.resume()
    if closed { waiter?.resume(returning: nil) }
    if let (depth, reporter) = overflow {
      (reporter ?? .default).report(
        ReportedIssue(
          kind: .queueBoundExceeded,
          message: "the outbox of shared node '\(node)' holds \(depth) actions, past its bound "
            + "(\(limits.pending)): actions were dispatched faster than the log takes them. "
            + "None was dropped; send(_:) waits for room.",
          fileID: "\(file)", line: line))
    }
  }

  /// Returns once the outbox holds fewer actions than its bound, or is closed.
  func waitForRoom() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let waits = state.withLock { state in
        guard !state.closed, state.pending.count >= limits.pending else { return false }
        state.roomWaiters.append(continuation)
        return true
      }
      if !waits { continuation.resume() }
    }
  }

  /// Puts back, ahead of everything queued, the records a previous run kept in the outbox store
  /// and the log may not have taken: they keep their origin sequences, so the log takes each
  /// once.
  func restore(_ records: [SharedLogRecord]) {
    let decoder = JSONDecoder()
    let restored = records.map { record in
      Pending(
        local: 0, record: record, action: try? actions.decode((0, record), with: decoder),
        numbered: true, kept: true)
    }
    let own = records.filter { $0.origin == node }.map(\.originSequence).max()
    state.withLock { state in
      state.pending.insert(contentsOf: restored, at: 0)
      if let own, own >= state.next { state.next = own &+ 1 }
    }
  }

  /// The log holds an entry of this node with origin sequence `number` (seen while applying
  /// it): new actions are numbered after it.
  func noteOwn(_ number: UInt64) {
    state.withLock { state in
      if number >= state.next { state.next = number &+ 1 }
    }
  }

  /// Lets the outbox number its actions: the node saw its own entries of the log.
  func startNumbering() {
    state.withLock { $0.numbering = true }
  }

  /// Queues `action` and returns the log's number for it once appended; `nil` when the outbox
  /// was closed first.
  ///
  /// - Throws: What ``enqueue(_:waiter:)`` throws.
  func enqueueAndWait(_ action: any Action) async throws -> UInt64? {
    await waitForRoom()
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

  /// The oldest actions queued and not acknowledged, in order: at most `count` of them and
  /// `limits.batchBytes` bytes, and at least one. Waits while there is nothing; empty once the
  /// outbox is closed or the task cancelled.
  func nextBatch(count: Int) async -> [Pending] {
    while true {
      let taken: [Pending]? = state.withLock { state in
        if state.closed || Task.isCancelled { return [] }
        guard !state.pending.isEmpty else { return nil }
        state.number()
        var end = 0
        var bytes = 0
        for pending in state.pending {
          let size = pending.record.payload.count + pending.record.name.utf8.count
          guard end == 0 || (end < count && bytes + size <= limits.batchBytes) else { break }
          end += 1
          bytes += size
        }
        return Array(state.pending.prefix(end))
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

  /// The numbered actions the outbox store does not keep yet, numbering what it can.
  func unkept() -> [Pending] {
    state.withLock { state in
      state.number()
      return state.pending.filter { $0.numbered && !$0.kept }
    }
  }

  /// The outbox store keeps `kept`: wakes who waited for them to be safe.
  func markKept(_ kept: [Pending]) {
    guard let last = kept.last?.local else { return }
    let ready = state.withLock { state in
      // Locals grow along the queue, so the kept ones are found in one pass.
      let locals = Set(kept.map(\.local))
      for index in state.pending.indices where state.pending[index].local <= last {
        if locals.contains(state.pending[index].local) { state.pending[index].kept = true }
      }
      return state.readyDurableWaiters()
    }
    for waiter in ready { waiter.resume(returning: true) }
  }

  /// Returns once every action queued so far is kept by the outbox store or taken by the log:
  /// `false` when the outbox was closed first.
  func waitUntilSafe() async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let outcome: Bool? = state.withLock { state in
        if state.closed { return false }
        let through = state.nextLocal - 1
        if state.pending.allSatisfy({ $0.kept || $0.local > through }) { return true }
        state.durableWaiters.append((through, continuation))
        return nil
      }
      if let outcome { continuation.resume(returning: outcome) }
    }
  }

  /// The log took `batch` and numbered it `numbers`: removes it and wakes who waited.
  func acknowledge(_ batch: [Pending], numbers: [UInt64]) {
    // The acknowledged actions leave the lock in `removed`, and are released after it: an
    // action's deinit may call back into the lane.
    let (woken, safe, room, removed) = state.withLock { state in
      let removed = Array(state.pending.prefix(batch.count))
      state.pending.removeFirst(removed.count)
      var woken: [(CheckedContinuation<UInt64?, Never>, UInt64)] = []
      for (pending, number) in zip(batch, numbers) {
        for waiter in state.waiters.removeValue(forKey: pending.local) ?? [] {
          woken.append((waiter, number))
        }
      }
      var room: [CheckedContinuation<Void, Never>] = []
      if state.pending.count < limits.pending {
        room = state.roomWaiters
        state.roomWaiters.removeAll()
        state.overflowReported = false
      }
      return (woken, state.readyDurableWaiters(), room, removed)
    }
    for (waiter, number) in woken { waiter.resume(returning: number) }
    for waiter in safe { waiter.resume(returning: true) }
    for waiter in room { waiter.resume() }
    withExtendedLifetime(removed) {}
  }

  /// Takes batches again after ``close()`` (the node started again); what was pending stays.
  /// An outbox closed by a failure stays closed.
  func open() {
    state.withLock { $0.closed = $0.failure != nil }
  }

  /// Why the log refuses this node's actions for good, if it does: who got `nil` or `false`
  /// from the outbox throws it instead of `CancellationError`.
  var failure: (any Error)? { state.withLock { $0.failure } }

  /// Stops taking batches; who waits for an acknowledgement gets `nil`. With `failure`, the
  /// outbox stays closed, and what was pending stays unsent.
  func close(failure: (any Error)? = nil) {
    let (waiters, durable, appender, room) = state.withLock { state in
      state.closed = true
      if state.failure == nil { state.failure = failure }
      defer {
        state.waiters.removeAll()
        state.durableWaiters.removeAll()
        state.roomWaiters.removeAll()
        state.appender = nil
      }
      return (
        state.waiters.values.flatMap { $0 }, state.durableWaiters.map(\.continuation),
        state.appender, state.roomWaiters
      )
    }
    appender?.resume()
    for waiter in room { waiter.resume() }
    for waiter in waiters { waiter.resume(returning: nil) }
    for waiter in durable { waiter.resume(returning: false) }
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
      try enqueue(action, file: file, line: line)
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
