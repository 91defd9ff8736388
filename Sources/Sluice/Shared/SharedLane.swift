import Foundation

/// One lane shared by several processes or hosts: its order comes from a log that every node
/// appends to, and every node applies the log in that order, so all nodes reach the same
/// states. An engine holds any number of lanes by name (`lane:`); a process may run nodes of
/// many lanes on one engine.
///
/// Stores join the lane's ``dispatcher`` as they join any dispatcher. An action dispatched to
/// it (by your code, an effect or an observer) is not processed at once: it goes to the node's
/// outbox, which appends everything queued since its last append as one batch. Each node, the
/// one that dispatched the action included, processes the action when it applies the log
/// entry. Effects run only on the node that dispatched the action, and the actions they
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
/// - Locks pause what this node applies, not the log.
public final class SharedLane: Sendable {
  /// The dispatcher the stores of the lane join.
  public let dispatcher: Dispatcher
  /// This node's name in the log: the origin of the actions it dispatches.
  public let node: String
  /// The name of the lane in the engine.
  public let lane: String
  /// The lane a node joins unless told otherwise: existing single-lane logs became this lane.
  public static let defaultLane = "default"
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
  /// What the retries after a failure of the engine or the outbox store wait on.
  let clock: any Clock<Duration>
  /// How many entries apart the node checks or saves snapshots.
  public let snapshotInterval: UInt64

  /// Creates a node of the lane whose log `engine` keeps; ``start()`` starts it.
  ///
  /// - Parameters:
  ///   - engine: The logs.
  ///   - lane: The lane's name in the engine, 1 to 200 UTF-8 bytes; ``defaultLane`` by default.
  ///   - actions: The actions that may be dispatched to the lane, by stable name.
  ///   - node: This node's name, unique among the lane's live nodes (``start()`` refuses a name
  ///     in use); a new one by default. A node restarted under its name numbers its actions
  ///     after those it appended before.
  ///   - outbox: Where the node keeps the actions it dispatched until the log takes them, so
  ///     that a crash loses none of them; `nil` (the default) keeps them in memory only. Each
  ///     batch is then written there before it is appended (a local write and a removal per
  ///     batch).
  ///   - label: The dispatcher's label.
  ///   - snapshotInterval: How many entries apart the node checks the snapshot another node
  ///     saved, or saves one, when the engine keeps snapshots (``SharedSnapshotEngine``) and
  ///     stores were shared with ``share(_:as:)``; 0 for never (the node still starts from
  ///     the newest snapshot: a reader that must not write uses 0).
  ///   - reporter: Receives the issues of the dispatcher and its stores.
  ///   - clock: What the pauses before a retry (after the engine or the outbox store failed)
  ///     are measured on; the continuous clock by default. Tests pass a test clock.
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/conflictingRegistrations(_:)``,
  ///   or ``SharedLogError`` of kind ``SharedLogError/Kind/invalidLaneName(_:)``.
  public init(
    engine: some SharedLogEngine, lane: String = SharedLane.defaultLane, actions: SharedActions,
    node: String = UUID().uuidString,
    outbox: (any SharedOutboxStore)? = nil, label: String = "sluice.shared",
    snapshotInterval: UInt64 = 1_000,
    reporter: IssueReporter? = nil, clock: any Clock<Duration> = ContinuousClock()
  ) throws {
    guard actions.conflicts.isEmpty else {
      throw SharedLaneError(.conflictingRegistrations(actions.conflicts))
    }
    try SharedLogError.check(lane: lane, "create a shared lane")
    self.engine = engine
    self.lane = lane
    self.node = node
    self.snapshotInterval = snapshotInterval
    self.clock = clock
    outboxStore = outbox
    progress = SharedProgress()
    self.outbox = SharedOutbox(node: node, actions: actions, progress: progress)
    dispatcher = Dispatcher(label: label, reporter: reporter, orderSource: self.outbox)
    self.outbox.attach(errors: dispatcher.errors)
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
  /// - Throws: ``SharedLogError`` of kind ``SharedLogError/Kind/nodeInUse(node:lane:)`` while
  ///   another live node has this name in the lane; the engine's or the outbox store's error
  ///   when it cannot be read at first, or the ``SharedLaneError`` that stopped the node while
  ///   it caught up.
  public func start() async throws {
    if !claimed.withLock({ $0 }) {
      try await engine.claimNode(node, of: lane)
      claimed.withLock { $0 = true }
    }
    do {
      try await follow()
    } catch {
      await release()
      throw error
    }
  }

  /// ``start()`` once the name is claimed.
  private func follow() async throws {
    let kept = try await outboxStore?.keptRecords() ?? []
    let head = try await engine.head(of: lane)
    let follower = SharedFollower(
      engine: engine, name: lane, outbox: outbox, progress: progress, lane: dispatcher.lane,
      parts: parts.withLock { $0 }, interval: snapshotInterval, clock: clock)
    let (start, origins) = try await follower.restoreLatest()
    let started = tasks.withLock { tasks -> Bool in
      guard tasks.isEmpty else { return false }
      tasks.append(
        Task { await follower.run(from: start, origins: origins, replaying: head) })
      return true
    }
    guard started else { return }
    outbox.restore(kept)
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
  /// - Throws: ``SharedLaneError`` when the action is not registered or the node stopped, or
  ///   `CancellationError` when the lane was stopped before the log took the action.
  @discardableResult
  public func send(_ action: some Action) async throws -> UInt64 {
    guard let sequence = try await outbox.enqueueAndWait(action) else {
      throw CancellationError()
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
  /// - Throws: The outbox store's error, or `CancellationError` when the lane was stopped
  ///   first.
  public func waitUntilDurable() async throws {
    if let outboxStore { try await Self.keep(outbox, in: outboxStore) }
    guard await outbox.waitUntilSafe() else { throw CancellationError() }
  }

  /// Stops appending and applying, and releases the node's name in the lane. Actions the log
  /// did not take yet stay unsent (call ``flush()`` first to send them); those the outbox store
  /// keeps are sent by the next node that starts with it.
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

  /// Releases the node's name, if this node claimed it.
  private func release() async {
    if claimed.withLock({ claimed in
      defer { claimed = false }
      return claimed
    }) {
      await engine.releaseNode(node, of: lane)
    }
  }

  // MARK: - The appending loop (the applying one is `SharedFollower`)

  /// Appends every batch the outbox has, retrying after a failure with a growing pause. With an
  /// outbox store, each batch is kept there first and forgotten once appended.
  private static func append(
    _ engine: any SharedLogEngine, _ lane: String, _ outbox: SharedOutbox,
    _ store: (any SharedOutboxStore)?, _ clock: any Clock<Duration>
  ) async {
    var failures = 0
    var storeFailing = false
    while !Task.isCancelled {
      let batch = await outbox.nextBatch()
      guard !batch.isEmpty else { return }
      if let store { await keep(outbox, in: store, failing: &storeFailing) }
      do {
        let numbers = try await engine.append(batch.map(\.record), to: lane)
        outbox.acknowledge(batch, numbers: numbers)
        failures = 0
        if let store { await forget(batch, in: store, outbox, failing: &storeFailing) }
      } catch {
        if Task.isCancelled { return }
        // Once per outage: the actions stay in the outbox, and go when the engine is back.
        if failures == 0 { outbox.report(error, action: batch.first?.action) }
        failures += 1
        // Until the retry, what is dispatched meanwhile is kept as it comes.
        var left = pause(after: failures)
        while !Task.isCancelled, left > .zero {
          let step = min(.milliseconds(10), left)
          try? await clock.sleep(for: step)
          left -= step
          if let store { await keep(outbox, in: store, failing: &storeFailing) }
        }
      }
    }
  }

  /// Writes the outbox's numbered actions that `store` does not keep yet into it.
  private static func keep(_ outbox: SharedOutbox, in store: any SharedOutboxStore) async throws {
    let unkept = outbox.unkept()
    guard !unkept.isEmpty else { return }
    try await store.keep(unkept.map(\.record))
    outbox.markKept(unkept)
  }

  /// ``keep(_:in:)``, reporting a failure once until the store works again; the log is tried
  /// all the same.
  private static func keep(
    _ outbox: SharedOutbox, in store: any SharedOutboxStore, failing: inout Bool
  ) async {
    do {
      try await keep(outbox, in: store)
      failing = false
    } catch {
      if !failing { outbox.report(error, action: nil) }
      failing = true
    }
  }

  /// Forgets the records of `batch`, which the log took, in `store`. A record kept again after
  /// this (by ``waitUntilDurable()`` racing the appender) is forgotten with the next batch of
  /// its origin, or appended once more, and ignored by the log, by the next node that starts.
  private static func forget(
    _ batch: [SharedOutbox.Pending], in store: any SharedOutboxStore, _ outbox: SharedOutbox,
    failing: inout Bool
  ) async {
    var through: [String: UInt64] = [:]
    for pending in batch {
      through[pending.record.origin] = max(
        through[pending.record.origin] ?? 0, pending.record.originSequence)
    }
    do {
      for (origin, sequence) in through {
        try await store.forget(origin: origin, through: sequence)
      }
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
