import Clocks
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// A shared lane: every node applies one log in its order and reaches the same states; effects
/// run on the node that dispatched; nothing is lost or applied twice when the engine fails; an
/// entry that does not decode stops the node before it.
@Suite struct SharedLaneTests {
  struct Add: Action, Codable, Equatable { let text: String }
  struct Ping: Action, Codable { let id: Int }
  struct Pong: Action, Codable { let id: Int }
  struct Unshared: Action {}

  static let actions = SharedActions()
    .register(Add.self, as: "test.add")
    .register(Ping.self, as: "test.ping")
    .register(Pong.self, as: "test.pong")

  static let reducer = Reducer<[String]>()
    .on(Add.self) { state, action in state.append(action.text) }
    .on(Ping.self) { state, action in state.append("ping \(action.id)") }
    .on(Pong.self) { state, action in state.append("pong \(action.id)") }

  /// A node with one store.
  struct Node {
    let lane: SharedLane
    let store: Store<[String]>

    init(_ engine: some SharedLogEngine, name: String, effects: Effects<[String]> = Effects())
      throws
    {
      lane = try SharedLane(engine: engine, actions: SharedLaneTests.actions, node: name)
      store = Store(
        initialState: [], dispatcher: lane.dispatcher, reducer: SharedLaneTests.reducer,
        effects: effects)
    }
  }

  @Test func nodesApplyOneLogInItsOrderAndReachTheSameStates() async throws {
    let engine = InMemoryLogEngine()
    let a = try Node(engine, name: "a")
    let b = try Node(engine, name: "b")
    try await a.lane.start()
    try await b.lane.start()
    // Node a sends from 50 tasks at once while node b dispatches its 50 in order from one:
    // only b's own order is promised (below), the two nodes' actions interleave as they come.
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask { _ = try? await a.lane.send(Add(text: "a\(index)")) }
      }
      group.addTask { for index in 0..<50 { b.store.dispatch(Add(text: "b\(index)")) } }
    }
    try await a.lane.flush()
    try await b.lane.flush()
    try await a.lane.flush()
    let log = await engine.entries(of: "default", after: 0, limit: 1_000)
    let added = log.filter { $0.record.name == "test.add" }
    #expect(added.count == 100)
    #expect(a.store.state == b.store.state)
    #expect(a.store.state.count == 100)
    // Each node's own actions keep the order it dispatched them in.
    #expect(a.store.state.filter { $0.hasPrefix("b") } == (0..<50).map { "b\($0)" })
    #expect(a.lane.appliedSequence == b.lane.appliedSequence)
    await a.lane.stop()
    await b.lane.stop()
  }

  @Test func effectsRunOnlyOnTheNodeThatDispatchedAndTheirActionsGoThroughTheLog() async throws {
    let engine = InMemoryLogEngine()
    let runs = Recorder<String>()
    func effects(_ name: String) -> Effects<[String]> {
      Effects<[String]>().on(Ping.self) { action, context in
        runs.append(name)
        context.dispatch(Pong(id: action.id))
      }
    }
    let a = try Node(engine, name: "a", effects: effects("a"))
    let b = try Node(engine, name: "b", effects: effects("b"))
    try await a.lane.start()
    try await b.lane.start()
    try await a.lane.send(Ping(id: 1))
    #expect(await eventually { a.store.state.count == 2 && b.store.state.count == 2 })
    try await a.lane.flush()
    try await b.lane.flush()
    #expect(runs.values == ["a"])
    #expect(a.store.state == ["ping 1", "pong 1"])
    #expect(b.store.state == ["ping 1", "pong 1"])
    await a.lane.stop()
    await b.lane.stop()
  }

  @Test func aNodeThatStartsLaterCatchesUpBeforeStartReturns() async throws {
    let engine = InMemoryLogEngine()
    let a = try Node(engine, name: "a")
    try await a.lane.start()
    for index in 0..<3_000 { a.store.dispatch(Add(text: "\(index)")) }
    try await a.lane.flush()
    let late = try Node(engine, name: "late")
    try await late.lane.start()
    #expect(late.store.state == a.store.state)
    #expect(late.store.state.count == 3_000)
    await a.lane.stop()
    await late.lane.stop()
  }

  @Test func anUnregisteredActionIsAnErrorValueAndIsNotDispatched() async throws {
    let engine = InMemoryLogEngine()
    let a = try Node(engine, name: "a")
    try await a.lane.start()
    a.store.dispatch(Unshared())
    await #expect(throws: SharedLaneError(.unregisteredAction("Unshared"))) {
      try await a.lane.send(Unshared())
    }
    try await a.lane.flush()
    #expect(a.lane.dispatcher.errors.totalCount == 1)
    #expect(await engine.head(of: "default") == 1)  // The flush's barrier only.
    await a.lane.stop()
  }

  @Test func conflictingRegistrationsAreRefused() {
    let actions = SharedActions().register(Add.self, as: "x").register(Ping.self, as: "x")
    #expect(throws: SharedLaneError.self) {
      _ = try SharedLane(engine: InMemoryLogEngine(), actions: actions)
    }
  }

  @Test func anEntryThatDoesNotDecodeStopsTheNodeBeforeIt() async throws {
    let engine = InMemoryLogEngine()
    let writer = try Node(engine, name: "w")
    try await writer.lane.start()
    try await writer.lane.send(Add(text: "one"))
    _ = try await engine.append(
      [SharedLogRecord(origin: "newer", originSequence: 1, name: "test.add.v2", payload: Data())],
      to: "default")
    writer.store.dispatch(Add(text: "three"))
    let reader = try Node(engine, name: "r")
    await #expect(throws: SharedLaneError.self) { try await reader.lane.start() }
    guard case .undecodableEntry(let sequence, _)? = reader.lane.progress.stopped?.kind else {
      Issue.record("expected the reader to stop at the undecodable entry")
      return
    }
    #expect(sequence == 2)
    #expect(reader.store.state == ["one"])
    #expect(reader.lane.dispatcher.errors.totalCount == 1)
    await writer.lane.stop()
    await reader.lane.stop()
  }

  @Test func anUnreachableEngineKeepsActionsInTheOutboxAndAppliesEachOnce() async throws {
    let engine = FlakyLogEngine()
    let a = try Node(engine, name: "a")
    try await a.lane.start()
    engine.mode.withLock { $0 = .down }
    for index in 0..<5 { a.store.dispatch(Add(text: "\(index)")) }
    #expect(await eventually { a.lane.dispatcher.errors.totalCount == 1 })
    #expect(a.lane.pendingCount >= 1)
    // Appended, but the acknowledgement is lost: the retry must not apply it twice.
    engine.mode.withLock { $0 = .losesAcknowledgements }
    #expect(await eventually { engine.lostAcknowledgements.withLock { $0 } > 0 })
    engine.mode.withLock { $0 = .up }
    try await a.lane.flush()
    #expect(a.store.state == (0..<5).map { "\($0)" })
    #expect(a.lane.pendingCount == 0)
    // One report for the outage.
    #expect(a.lane.dispatcher.errors.totalCount == 1)
    await a.lane.stop()
  }

  /// Retries `condition` with short sleeps until it holds, or for ``hangGuard``, whose
  /// expiry means a deadlock, not a slow machine.
  func eventually(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: hangGuard)
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
  }
}

/// An in-memory log whose appends fail on demand, or succeed and then fail (a lost
/// acknowledgement).
final class FlakyLogEngine: ForwardingLogEngine {
  enum Mode { case up, down, losesAcknowledgements }
  struct Down: Error {}

  let inner = InMemoryLogEngine()
  let mode = Guarded(Mode.up)
  let lostAcknowledgements = Guarded(0)
  /// The most records an append was given.
  let largestBatch = Guarded(0)
  /// Appends of more records than this fail, as a batch past a server's time-out does.
  let failsAbove = Guarded(Int.max)
  /// Whether reading the head fails, as appends do when down.
  let headFails = Guarded(false)

  func head(of lane: String) async throws -> UInt64 {
    if headFails.withLock({ $0 }) { throw Down() }
    return await inner.head(of: lane)
  }

  func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
    largestBatch.withLock { $0 = max($0, records.count) }
    if records.count > failsAbove.withLock({ $0 }) { throw Down() }
    switch mode.withLock({ $0 }) {
    case .up: return try await inner.append(records, to: lane)
    case .down: throw Down()
    case .losesAcknowledgements:
      _ = try await inner.append(records, to: lane)
      lostAcknowledgements.withLock { $0 += 1 }
      throw Down()
    }
  }
}

/// A test engine that passes what it does not change on to an in-memory engine.
protocol ForwardingLogEngine: SharedLogEngine {
  var inner: InMemoryLogEngine { get }
}

extension ForwardingLogEngine {
  func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
    try await inner.append(records, to: lane)
  }

  func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [(sequence: UInt64, record: SharedLogRecord)]
  {
    await inner.entries(of: lane, after: sequence, limit: limit)
  }

  func head(of lane: String) async throws -> UInt64 { await inner.head(of: lane) }

  func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration) async throws {
    await inner.waitForEntries(of: lane, after: sequence, timeout: timeout)
  }

  func claimNode(_ node: String, of lane: String) async throws {
    try await inner.claimNode(node, of: lane)
  }

  func releaseNode(_ node: String, of lane: String) async {
    await inner.releaseNode(node, of: lane)
  }

  func latestSnapshot(of lane: String) async throws -> SharedSnapshot? {
    await inner.latestSnapshot(of: lane)
  }

  func snapshot(of lane: String, at sequence: UInt64) async throws -> SharedSnapshot? {
    await inner.snapshot(of: lane, at: sequence)
  }

  func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws {
    try await inner.saveSnapshot(snapshot, to: lane)
  }
}

extension SharedLaneTests {
  @Test func aNodeRestartedUnderItsNameNumbersAfterItsEntriesAndRunsNoEffectTwice() async throws {
    let engine = InMemoryLogEngine()
    let runs = Recorder<Int>()
    let effects = Effects<[String]>().on(Ping.self) { action, _ in runs.append(action.id) }
    let first = try Node(engine, name: "a", effects: effects)
    try await first.lane.start()
    try await first.lane.send(Ping(id: 1))
    try await first.lane.send(Add(text: "x"))
    await first.lane.stop()
    #expect(await eventually { runs.values == [1] })

    let again = try Node(engine, name: "a", effects: effects)
    try await again.lane.start()
    #expect(again.store.state == ["ping 1", "x"])
    try await again.lane.send(Ping(id: 2))
    try await again.lane.send(Add(text: "y"))
    #expect(again.store.state == ["ping 1", "x", "ping 2", "y"])
    #expect(await eventually { runs.values == [1, 2] })
    let numbers = await engine.entries(of: "default", after: 0, limit: 10)
      .filter { $0.record.origin == "a" }.map(\.record.originSequence)
    #expect(numbers == [1, 2, 3, 4])
    await again.lane.stop()
  }
}

extension SharedLaneTests {
  @Test func transactionsAreRefusedAndExclusiveActionsGoThroughTheLog() async throws {
    let engine = InMemoryLogEngine()
    let a = try Node(engine, name: "a")
    try await a.lane.start()
    let outcome = await a.lane.dispatcher.transaction { tx in
      try tx.update(a.store) { $0 = ["local"] }
    }
    guard case .failed(let error) = outcome else {
      Issue.record("expected the transaction to be refused, got \(outcome)")
      return
    }
    #expect(error as? SharedLaneError == SharedLaneError(.localOnly("transaction")))
    let lock = a.lane.dispatcher.exclusive(Add(text: "exclusive"))
    #expect(lock.isReleased)
    try await a.lane.flush()
    #expect(a.store.state == ["exclusive"])
    #expect(a.lane.dispatcher.errors.totalCount == 2)
    await a.lane.stop()
  }
}

extension SharedLaneTests {
  /// A node whose store is shared for snapshots.
  static func snapshotted(
    _ engine: some SharedLogEngine, name: String,
    reducer: Reducer<[String]> = SharedLaneTests.reducer
  ) async throws -> (SharedLane, Store<[String]>) {
    let lane = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: name, snapshotInterval: 10)
    let store = Store(initialState: [String](), dispatcher: lane.dispatcher, reducer: reducer)
    try lane.share(store, as: "texts")
    try await lane.start()
    return (lane, store)
  }

  @Test func aNodeStartsFromTheNewestSnapshotAndAppliesOnlyTheEntriesAfterIt() async throws {
    let engine = InMemoryLogEngine()
    let (a, aStore) = try await Self.snapshotted(engine, name: "a")
    for index in 0..<25 { try await a.send(Add(text: "\(index)")) }
    #expect(await engine.latestSnapshot(of: "default")?.sequence == 20)
    let reduced = Recorder<String>()
    let counting = Reducer<[String]>().on(Add.self) { state, action in
      reduced.append(action.text)
      state.append(action.text)
    }
    let (b, bStore) = try await Self.snapshotted(engine, name: "b", reducer: counting)
    #expect(bStore.state == aStore.state)
    #expect(reduced.values == ["20", "21", "22", "23", "24"])
    await a.stop()
    await b.stop()
  }

  @Test func nodesWhoseStatesDifferAtASnapshotReportTheDivergenceAndStop() async throws {
    let engine = InMemoryLogEngine()
    let (a, _) = try await Self.snapshotted(engine, name: "a")
    for index in 0..<10 { try await a.send(Add(text: "\(index)")) }
    // A reducer that is not the same function on every node.
    let impure = Reducer<[String]>().on(Add.self) { state, action in
      state.append(action.text == "17" ? "seventeen" : action.text)
    }
    let (b, _) = try await Self.snapshotted(engine, name: "b", reducer: impure)
    for index in 10..<20 { a.dispatcher.dispatch(Add(text: "\(index)")) }
    // Whichever node saves the snapshot after entry 20 first, the other one sees the
    // difference.
    #expect(await eventually { a.stopReason != nil || b.stopReason != nil })
    let stopped = [a, b].filter { $0.stopReason != nil }
    #expect(stopped.count == 1)
    guard case .divergence(let sequence, let expected, let found)? = stopped.first?.stopReason?.kind
    else {
      Issue.record(
        "expected a divergence, got \(stopped.map { String(describing: $0.stopReason) })")
      return
    }
    #expect(sequence == 20)
    #expect(expected != found)
    #expect(stopped.first?.dispatcher.errors.totalCount == 1)
    await a.stop()
    await b.stop()
  }

  @Test func aNodeRestartedFromASnapshotNumbersAfterItsOwnEntries() async throws {
    let engine = InMemoryLogEngine()
    let (first, _) = try await Self.snapshotted(engine, name: "a")
    for index in 0..<12 { try await first.send(Add(text: "\(index)")) }
    await first.stop()
    let (again, store) = try await Self.snapshotted(engine, name: "a")
    try await again.send(Add(text: "after"))
    #expect(store.state.last == "after")
    #expect(store.state.count == 13)
    let numbers = await engine.entries(of: "default", after: 0, limit: 100)
      .filter { $0.record.origin == "a" }.map(\.record.originSequence)
    #expect(numbers == Array(1...13))
    await again.stop()
  }

  @Test func aStoreIsSharedOnceAndOnlyFromItsOwnLane() throws {
    let lane = try SharedLane(engine: InMemoryLogEngine(), actions: SharedLaneTests.actions)
    let store = Store(initialState: [String](), dispatcher: lane.dispatcher, reducer: Self.reducer)
    try lane.share(store, as: "texts")
    #expect(throws: SharedLaneError.self) { try lane.share(store, as: "texts") }
    let elsewhere = Store(initialState: [String](), reducer: Self.reducer)
    #expect(throws: SharedLaneError.self) { try lane.share(elsewhere, as: "other") }
  }
}

extension SharedLaneTests {
  @Test(.timeLimit(.minutes(10)))
  func anInMemoryLogsWaitTimesOutOnItsClock() async {
    // An hour on an immediate clock passes at once; on the continuous clock the time limit (a
    // hang guard) would end the test first.
    let clock = ImmediateClock()
    let engine = InMemoryLogEngine(clock: clock)
    let start = clock.now
    await engine.waitForEntries(of: "default", after: 0, timeout: .seconds(3_600))
    #expect(start.duration(to: clock.now) == .seconds(3_600))
    #expect(await engine.head(of: "default") == 0)
  }
}
