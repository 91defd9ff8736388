import Foundation

/// One lane shared by several processes or hosts: its order comes from a log that every node
/// appends to, and every node applies the log in that order, so all nodes reach the same
/// states.
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
/// - An entry that does not decode stops the node before it, with
///   ``SharedLaneError/Kind/undecodableEntry(sequence:reason:)``: a node never skips or
///   reorders an entry.
/// - Locks pause what this node applies, not the log.
public final class SharedLane: Sendable {
  /// The dispatcher the stores of the lane join.
  public let dispatcher: Dispatcher
  /// This node's name in the log: the origin of the actions it dispatches.
  public let node: String
  let engine: any SharedLogEngine
  let outbox: SharedOutbox
  let progress: SharedProgress
  private let tasks = Guarded<[Task<Void, Never>]>([])
  private let parts = Guarded<[String: SharedPart]>([:])
  /// How many entries apart the node checks or saves snapshots.
  public let snapshotInterval: UInt64

  /// Creates a node of the lane whose log `engine` keeps; ``start()`` starts it.
  ///
  /// - Parameters:
  ///   - engine: The log.
  ///   - actions: The actions that may be dispatched to the lane, by stable name.
  ///   - node: This node's name, unique among the nodes; a new one by default.
  ///   - label: The dispatcher's label.
  ///   - snapshotInterval: How many entries apart the node checks the snapshot another node
  ///     saved, or saves one, when the engine keeps snapshots (``SharedSnapshotEngine``) and
  ///     stores were shared with ``share(_:as:)``; 0 for never (the node still starts from
  ///     the newest snapshot: a reader that must not write uses 0).
  ///   - reporter: Receives the issues of the dispatcher and its stores.
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/conflictingRegistrations(_:)``.
  public init(
    engine: some SharedLogEngine, actions: SharedActions, node: String = UUID().uuidString,
    label: String = "sluice.shared", snapshotInterval: UInt64 = 1_000,
    reporter: IssueReporter? = nil
  ) throws {
    guard actions.conflicts.isEmpty else {
      throw SharedLaneError(.conflictingRegistrations(actions.conflicts))
    }
    self.engine = engine
    self.node = node
    self.snapshotInterval = snapshotInterval
    progress = SharedProgress()
    outbox = SharedOutbox(node: node, actions: actions, progress: progress)
    dispatcher = Dispatcher(label: label, reporter: reporter, orderSource: outbox)
    outbox.attach(errors: dispatcher.errors)
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

  /// Starts following the log and appending what is dispatched; returns once this node applied
  /// the log as it was when called.
  ///
  /// - Throws: The engine's error when it cannot be read at first, or the
  ///   ``SharedLaneError`` that stopped the node while it caught up.
  public func start() async throws {
    let head = try await engine.head()
    let follower = SharedFollower(
      engine: engine, outbox: outbox, progress: progress, lane: dispatcher.lane,
      parts: parts.withLock { $0 }, interval: snapshotInterval)
    let (start, origins) = try await follower.restoreLatest()
    let started = tasks.withLock { tasks -> Bool in
      guard tasks.isEmpty else { return false }
      tasks.append(
        Task { await follower.run(from: start, origins: origins, replaying: head) })
      return true
    }
    guard started else { return }
    try await progress.waitUntilApplied(head)
    // The appender starts once the node saw its own entries of the log so far, so that it
    // numbers its actions after them.
    tasks.withLock { tasks in
      if !tasks.isEmpty {
        tasks.append(Task { [engine, outbox] in await Self.append(engine, outbox) })
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

  /// Stops appending and applying. Actions the log did not take yet stay unsent (call
  /// ``flush()`` first to send them).
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
  }

  // MARK: - The appending loop (the applying one is `SharedFollower`)

  /// Appends every batch the outbox has, retrying after a failure with a growing pause.
  private static func append(_ engine: any SharedLogEngine, _ outbox: SharedOutbox) async {
    var failures = 0
    while !Task.isCancelled {
      let batch = await outbox.nextBatch()
      guard !batch.isEmpty else { return }
      do {
        let numbers = try await engine.append(batch.map(outbox.record(of:)))
        outbox.acknowledge(batch, numbers: numbers)
        failures = 0
      } catch {
        if Task.isCancelled { return }
        // Once per outage: the actions stay in the outbox, and go when the engine is back.
        if failures == 0 { outbox.report(error, action: batch.first?.action) }
        failures += 1
        try? await Task.sleep(for: pause(after: failures))
      }
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
