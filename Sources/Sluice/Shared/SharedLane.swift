import Foundation

/// One lane shared by several processes or hosts: its order comes from a log that every node
/// appends to, and every node applies the log in that order, so all nodes reach the same
/// states. An engine holds any number of lanes by name (`lane:`); a process may run nodes of
/// many lanes on one engine.
///
/// Stores join the lane's ``dispatcher`` as they join any dispatcher. An action dispatched to
/// it (by your code, an effect or an observer) is not processed at once: it goes to the node's
/// outbox, which appends what is queued in batches capped by `batchCount` and `batchBytes`
/// (1,000 actions and 1 MiB by default), and holds at most `pending` actions (see
/// ``init(engine:lane:actions:node:outbox:batchCount:batchBytes:pending:label:snapshotInterval:reporter:clock:)``). Each
/// node, the one that dispatched the action included, processes the action when it applies the
/// log entry. Effects run only on the node that dispatched the action, and the actions they
/// dispatch go through the log too.
///
/// ```swift
/// let actions = SharedActions()
///   .register(AddTodo.self, as: "todo.add")
/// let lane = try SharedLane(engine: try SQLiteLogEngine(path: path), actions: actions)
/// let todos = Store(initialState: TodoList(), dispatcher: lane.dispatcher, reducer: reducer)
/// try await lane.start()  // applies the log so far
/// let sequence = try await lane.send(AddTodo(title: "milk"))  // appended and applied
/// ```
///
/// - Every dispatch to the lane is asynchronous, whatever its mode: the action waits for the
///   log. ``send(_:)`` returns once the action was appended and applied here.
/// - The actions must be `Codable` and registered in the lane's ``SharedActions``; another
///   action is reported on the dispatcher's ``Dispatcher/errors`` channel and not dispatched.
/// - An engine that cannot be reached is reported on the same channel (once per outage); the
///   actions stay in the outbox and are appended when it is back, each once.
/// - With an outbox store (`outbox:`), the outbox survives a crash: each action is kept there
///   before it is appended, and a node that starts appends what a previous run left.
///   ``waitUntilDurable()`` returns once everything dispatched so far is kept or appended.
/// - An entry that does not decode stops the node before it, with
///   ``SharedLaneError/Kind/undecodableEntry(sequence:reason:)``: a node never skips or
///   reorders an entry.
/// - An append the log refuses with
///   ``SharedLaneError/Kind/originConflict(origin:originSequence:sequence:)`` (another process
///   used this node's name) stops the node's appends: it is reported on the errors channel,
///   every ``send(_:)`` and ``waitUntilDurable()`` waiting or to come throws it, and the actions
///   stay in the outbox (and its store), unsent. Start a node under another name.
/// - Locks pause what this node applies, not the log.
public final class SharedLane: Sendable {
  /// The dispatcher the stores of the lane join.
  public let dispatcher: Dispatcher
  /// This node's name in the log: the origin of the actions it dispatches.
  public let node: String
  /// The name of the lane in the engine.
  public let lane: String
  let engine: any SharedLogEngine
  let outbox: SharedOutbox
  /// Where the outbox survives a crash, if anywhere.
  let outboxStore: (any SharedOutboxStore)?
  let progress: SharedProgress
  private let tasks = Guarded<[Task<Void, Never>]>([])
  private let parts = Guarded<[String: SharedPart]>([:])
  /// Whether this node holds its name in the engine (``start()`` claims it, ``stop()`` releases
  /// it).
  private let claimed = Guarded(false)
  /// Where a stopped node resumes: each node's highest origin sequence up to the entry it
  /// applied last (`nil` before the first start).
  private let resume = Guarded<[String: UInt64]?>(nil)
  /// What the retries after a failure of the engine or the outbox store wait on.
  let clock: any Clock<Duration>
  /// How many entries apart the node checks or saves snapshots.
  let snapshotInterval: UInt64

  /// How much a node's outbox sends in one append, and how much it holds (each at least 1).
  struct Limits: Sendable, Hashable {
    /// The most actions in one append.
    var batchCount: Int
    /// The most bytes (names and payloads) in one append.
    var batchBytes: Int
    /// The most actions the outbox holds.
    var pending: Int
  }

  /// Creates a node of the lane whose log `engine` keeps; ``start()`` starts it.
  ///
  /// - Parameters:
  ///   - engine: The logs.
  ///   - lane: The lane's name in the engine, 1 to 200 UTF-8 bytes; `"default"` by default
  ///     (logs made before lanes became this lane).
  ///   - actions: The actions that may be dispatched to the lane, by stable name.
  ///   - node: This node's name, unique among the lane's live nodes (``start()`` refuses a name
  ///     in use); a new one by default. A node restarted under its name numbers its actions
  ///     after those it appended before.
  ///   - outbox: Where the node keeps the actions it dispatched until the log takes them, so
  ///     that a crash loses none of them; `nil` (the default) keeps them in memory only. Each
  ///     batch is then written there before it is appended (a local write and a removal per
  ///     batch).
  ///   - batchCount: The most actions in one append; 1,000 by default. After a failed append
  ///     the next batch is half as large (down to one action: a batch that timed out is split),
  ///     and it doubles again with each success.
  ///   - batchBytes: The most bytes (names and payloads) in one append; 1 MiB by default. An
  ///     action larger than this goes alone.
  ///   - pending: The most actions the outbox holds; 100,000 by default. Past it, ``send(_:)``
  ///     waits for room, and a `dispatch`, which must not wait, queues its action all the same
  ///     and reports ``ReportedIssue/Kind/queueBoundExceeded`` (once until the outbox is back
  ///     under the bound). No action is dropped. Values under 1 count as 1, for the three.
  ///   - label: The dispatcher's label.
  ///   - snapshotInterval: How many entries apart the node checks the snapshot another node
  ///     saved, or saves one, when stores were shared with ``share(_:as:)``; 0 for never (the
  ///     node still starts from the newest snapshot: a reader that must not write uses 0).
  ///   - reporter: Receives the issues of the dispatcher and its stores.
  ///   - clock: What the pauses before a retry (after the engine or the outbox store failed)
  ///     are measured on; the continuous clock by default. Tests pass a test clock.
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/conflictingRegistrations(_:)``
  ///   or ``SharedLaneError/Kind/invalidLaneName(_:)``.
  public init(
    engine: some SharedLogEngine, lane: String = "default", actions: SharedActions,
    node: String = UUID().uuidString, outbox: (any SharedOutboxStore)? = nil,
    batchCount: Int = 1_000, batchBytes: Int = 1 << 20, pending: Int = 100_000,
    label: String = "sluice.shared", snapshotInterval: UInt64 = 1_000,
    reporter: IssueReporter? = nil, clock: any Clock<Duration> = ContinuousClock()
  ) throws {
    guard actions.conflicts.isEmpty else {
      throw SharedLaneError(.conflictingRegistrations(actions.conflicts))
    }
    try SharedLaneError.check(lane: lane, "create a shared lane")
    self.engine = engine
    self.lane = lane
    self.node = node
    self.snapshotInterval = snapshotInterval
    self.clock = clock
    outboxStore = outbox
    progress = SharedProgress()
    let limits = Limits(
      batchCount: max(1, batchCount), batchBytes: max(1, batchBytes), pending: max(1, pending))
    self.outbox = SharedOutbox(node: node, actions: actions, progress: progress, limits: limits)
    dispatcher = Dispatcher(label: label, reporter: reporter, orderSource: self.outbox)
    self.outbox.attach(errors: dispatcher.errors, reporter: dispatcher.lane.reporter)
  }

  deinit {
    outbox.close()
    for task in tasks.withLock({ $0 }) { task.cancel() }
  }

  /// The last entry of the log this node applied.
  public var appliedSequence: UInt64 { progress.applied }

  /// Why this node stopped applying the log (an entry it cannot apply), if it did; it then
  /// applies nothing more.
  public var stopReason: SharedLaneError? { progress.stopped }

  /// The number of actions this node dispatched that the log has not taken yet.
  public var pendingCount: Int { outbox.pendingCount }

  /// Claims the node's name in the lane, starts following the log and appending what is
  /// dispatched; returns once this node applied the log as it was when called.
  ///
  /// An engine that cannot be reached does not make it throw: as a running node does, it
  /// reports the outage on the dispatcher's ``Dispatcher/errors`` channel (once) and tries
  /// again after a pause on the lane's clock, 10 ms doubling up to 1 s. Cancel the task that
  /// called it to give up.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/nodeInUse(node:lane:)`` while
  ///   another live node has this name in the lane; the outbox store's error when it cannot be
  ///   read; the ``SharedLaneError`` that stopped the node while it caught up; or
  ///   `CancellationError`.
  public func start() async throws {
    if !claimed.withLock({ $0 }) {
      try await retrying { [engine, node, lane] in try await engine.claimNode(node, of: lane) }
      claimed.withLock { $0 = true }
    }
    do {
      try await follow()
    } catch {
      await release()
      throw error
    }
  }

  /// ``start()`` once the name is claimed: the first time from the newest snapshot, after a
  /// ``stop()`` from where the node stopped.
  private func follow() async throws {
    let resumed = resume.withLock { $0 }
    // After a stop, what the store keeps is still in the outbox.
    let kept = resumed == nil ? try await outboxStore?.keptRecords(of: lane) ?? [] : []
    let head: UInt64
    do {
      head = try await retrying { [engine, lane] in try await engine.head(of: lane) }
    } catch let failure as SharedLaneError {
      // The engine found an entry it cannot decode: the node applies the entries before it and
      // stops there.
      guard case .undecodableEntry(let sequence, _) = failure.kind else { throw failure }
      head = sequence
    }
    let follower = SharedFollower(
      engine: engine, name: lane, outbox: outbox, progress: progress, lane: dispatcher.lane,
      parts: parts.withLock { $0 }, interval: snapshotInterval, clock: clock)
    let (start, origins) =
      if let resumed {
        (progress.applied, resumed)
      } else {
        try await retrying { try await follower.restoreLatest() }
      }
    let started = tasks.withLock { [resume] tasks -> Bool in
      guard tasks.isEmpty else { return false }
      tasks.append(
        Task {
          await follower.run(from: start, origins: origins, replaying: head, keeping: resume)
        })
      return true
    }
    guard started else { return }
    outbox.restore(kept)
    outbox.open()
    try await progress.waitUntilApplied(head)
    // The outbox numbers its actions once the node saw its own entries of the log so far, so
    // that the numbers come after them.
    outbox.startNumbering()
    tasks.withLock { tasks in
      if !tasks.isEmpty {
        tasks.append(
          Task { [engine, lane, outbox, outboxStore, clock] in
            await Self.append(engine, lane, outbox, outboxStore, clock)
          })
      }
    }
  }

  /// Shares `store` under `name` in the lane's snapshots (call it before ``start()``): a node
  /// that starts restores the store from the newest snapshot and applies only the entries after
  /// it, and every `snapshotInterval` entries the nodes compare the hashes of their states.
  ///
  /// The state is encoded as sorted-key JSON, so that equal states hash the same on every
  /// node.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/unusableSnapshot(_:)`` when
  ///   `name` is taken or the store is on another dispatcher.
  public func share<State: Codable & Sendable>(_ store: Store<State>, as name: String) throws {
    guard store.core.lane === dispatcher.lane else {
      throw SharedLaneError(
        .unusableSnapshot("the store shared as '\(name)' is not on the lane's dispatcher"))
    }
    // The lane keeps the store: its state is part of what the nodes compare.
    let part = SharedPart(
      encode: { try SharedActions.sortedKeysEncoder().encode(store.state) },
      restore: { data in
        store.core.replaceState(with: try JSONDecoder().decode(State.self, from: data))
      })
    try parts.withLock { parts in
      guard parts[name] == nil else {
        throw SharedLaneError(.unusableSnapshot("the name '\(name)' is shared twice"))
      }
      parts[name] = part
    }
  }

  /// Dispatches `action` through the log; returns its number in the log once this node
  /// applied it.
  ///
  /// - Throws: ``SharedLaneError`` when the action is not registered or the node stopped;
  ///   ``SharedLaneError`` of kind
  ///   ``SharedLaneError/Kind/originConflict(origin:originSequence:sequence:)`` when the log holds
  ///   this node's number for another action (the node then appends nothing more); or
  ///   `CancellationError` when the lane was stopped before the log took the action.
  @discardableResult
  public func send(_ action: some Action) async throws -> UInt64 {
    guard let sequence = try await outbox.enqueueAndWait(action) else {
      throw outbox.failure ?? CancellationError()
    }
    try await progress.waitUntilApplied(sequence)
    return sequence
  }

  /// Returns once the log took every action dispatched so far and this node applied them.
  ///
  /// - Throws: The ``SharedLaneError`` that stopped the node, or `CancellationError` when the
  ///   lane was stopped first.
  public func flush() async throws {
    try await send(SharedLaneBarrier())
  }

  /// Returns once every action dispatched to this node so far survives a crash of its process:
  /// the log took it, or the outbox store keeps it (without an outbox store, once the log took
  /// it). Actions dispatched before ``start()`` are kept once the node started.
  ///
  /// - Throws: The outbox store's error; the origin conflict that stopped the node's appends
  ///   (see ``send(_:)``); or `CancellationError` when the lane was stopped first.
  public func waitUntilDurable() async throws {
    if let outboxStore { try await Self.keep(outbox, in: outboxStore, lane) }
    guard await outbox.waitUntilSafe() else { throw outbox.failure ?? CancellationError() }
  }

  /// Stops appending and applying, and releases the node's name in the lane. Actions the log
  /// did not take yet stay unsent (call ``flush()`` first to send them): ``start()`` starts the
  /// node again from where it stopped, and sends them; those the outbox store keeps are also
  /// sent by the next node that starts with it. A ``send(_:)`` waiting meanwhile throws
  /// `CancellationError`.
  public func stop() async {
    outbox.close()
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return tasks
    }
    for task in running {
      task.cancel()
      await task.value
    }
    await release()
  }

  /// `body`'s value, trying again after a failure of the engine with a growing pause on the
  /// lane's clock, the outage reported once. What another try would meet again (a
  /// ``SharedLaneError``, a ``LastingFailure`` such as a file whose
  /// schema a reader cannot use) and cancellation are thrown.
  private func retrying<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    var failures = 0
    while true {
      do {
        return try await body()
      } catch  where error is SharedLaneError {
        throw error
      } catch let error as any LastingFailure where error.isLasting {
        throw error
      } catch {
        try Task.checkCancellation()
        if failures == 0 { outbox.report(error, action: nil) }
        failures += 1
        try await clock.sleep(for: Self.pause(after: failures))
      }
    }
  }

  /// Releases the node's name, if this node claimed it.
  private func release() async {
    let wasClaimed = claimed.withLock { claimed in
      defer { claimed = false }
      return claimed
    }
    if wasClaimed { await engine.releaseNode(node, of: lane) }
  }

  // MARK: - The appending loop (the applying one is `SharedFollower`)

  /// Appends every batch the outbox has, retrying after a failure with a growing pause and a
  /// batch half as large (a batch too large for the engine's time-out is split). With an
  /// outbox store, each batch is kept there first and forgotten once appended.
  private static func append(
    _ engine: any SharedLogEngine, _ lane: String, _ outbox: SharedOutbox,
    _ store: (any SharedOutboxStore)?, _ clock: any Clock<Duration>
  ) async {
    var failures = 0
    var storeFailing = false
    let largest = outbox.limits.batchCount
    var count = largest
    while !Task.isCancelled {
      let batch = await outbox.nextBatch(count: count)
      guard !batch.isEmpty else { return }
      if let store { await once(outbox, &storeFailing) { try await keep(outbox, in: store, lane) } }
      do {
        let numbers = try await engine.append(batch.map(\.record), to: lane)
        outbox.acknowledge(batch, numbers: numbers)
        failures = 0
        count = count > largest / 2 ? largest : count * 2
        if let store {
          await once(outbox, &storeFailing) { try await forget(batch, in: store, lane) }
        }
      } catch {
        if Task.isCancelled { return }
        if let conflict = error as? SharedLaneError, case .originConflict = conflict.kind {
          // Another action holds this node's number: no retry can append it.
          outbox.report(error, action: batch.first?.action)
          outbox.close(failure: conflict)
          return
        }
        // Once per outage: the actions stay in the outbox, and go when the engine is back.
        if failures == 0 { outbox.report(error, action: batch.first?.action) }
        failures += 1
        count = max(1, min(count, batch.count) / 2)
        // Until the retry, what is dispatched meanwhile is kept as it comes.
        var left = pause(after: failures)
        while !Task.isCancelled, left > .zero {
          let step = min(.milliseconds(10), left)
          try? await clock.sleep(for: step)
          left -= step
          if let store {
            await once(outbox, &storeFailing) { try await keep(outbox, in: store, lane) }
          }
        }
      }
    }
  }

  /// Writes the outbox's numbered actions that `store` does not keep yet into it.
  private static func keep(
    _ outbox: SharedOutbox, in store: any SharedOutboxStore, _ lane: String
  ) async throws {
    let unkept = outbox.unkept()
    guard !unkept.isEmpty else { return }
    try await store.keep(unkept.map(\.record), for: lane)
    outbox.markKept(unkept)
  }

  /// Forgets the records of `batch`, which the log took, in `store`. A record kept again after
  /// this (by ``waitUntilDurable()`` racing the appender) is forgotten with the next batch of
  /// its origin, or appended once more, and ignored by the log, by the next node that starts.
  private static func forget(
    _ batch: [SharedOutbox.Pending], in store: any SharedOutboxStore, _ lane: String
  ) async throws {
    var through: [String: UInt64] = [:]
    for pending in batch {
      through[pending.record.origin] = max(
        through[pending.record.origin] ?? 0, pending.record.originSequence)
    }
    for (origin, sequence) in through {
      try await store.forget(origin: origin, through: sequence, of: lane)
    }
  }

  /// Runs a write to the outbox store, reporting its failure once until the store works again
  /// (`failing` says whether the last one failed); the log is tried all the same.
  private static func once(
    _ outbox: SharedOutbox, _ failing: inout Bool, _ write: () async throws -> Void
  ) async {
    do {
      try await write()
      failing = false
    } catch {
      if !failing { outbox.report(error, action: nil) }
      failing = true
    }
  }

  /// 10 ms after a first failure, doubling up to 1 s.
  static func pause(after failures: Int) -> Duration {
    .milliseconds(10 << min(failures - 1, 7))
  }
}

/// The action ``SharedLane/flush()`` sends: it changes nothing, and is applied once the actions
/// dispatched before it were.
struct SharedLaneBarrier: Action, Codable {}
