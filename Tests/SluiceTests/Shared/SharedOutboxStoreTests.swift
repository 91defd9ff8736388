import Foundation
import Testing

@testable import Sluice

/// A shared lane with an outbox store: what the log could not take survives a crash of the
/// node, and the next run appends it once, also when the log had taken it already.
@Suite struct SharedOutboxStoreTests {
  typealias Add = SharedLaneTests.Add

  /// A lane and its store, with `outbox`.
  static func node(
    _ engine: some SharedLogEngine, _ outbox: MemoryOutboxStore, name: String
  ) throws -> (SharedLane, Store<[String]>) {
    let lane = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: name, outbox: outbox)
    let store = Store(
      initialState: [String](), dispatcher: lane.dispatcher, reducer: SharedLaneTests.reducer)
    return (lane, store)
  }

  /// The texts of the log's `test.add` entries, in order.
  static func added(_ engine: FlakyLogEngine) async -> [String] {
    await engine.inner.entries(of: "default", after: 0, limit: 1_000).compactMap { entry in
      try? JSONDecoder().decode(Add.self, from: entry.record.payload).text
    }
  }

  @Test func whatTheLogCouldNotTakeSurvivesACrashAndIsAppendedOnceByTheNextRun() async throws {
    let engine = FlakyLogEngine()
    let outbox = MemoryOutboxStore()
    let (first, store) = try Self.node(engine, outbox, name: "a")
    try await first.start()
    engine.mode.withLock { $0 = .down }
    for index in 0..<5 { store.dispatch(Add(text: "\(index)")) }
    try await first.waitUntilDurable()
    #expect(outbox.records.map(\.originSequence) == [1, 2, 3, 4, 5])
    // The crash: the node goes without flushing.
    await first.stop()

    engine.mode.withLock { $0 = .up }
    let (again, restarted) = try Self.node(engine, outbox, name: "a")
    try await again.start()
    restarted.dispatch(Add(text: "after"))
    try await again.flush()
    #expect(restarted.state == ["0", "1", "2", "3", "4", "after"])
    #expect(await Self.added(engine) == ["0", "1", "2", "3", "4", "after"])
    #expect(await SharedLaneTests().eventually { outbox.records.isEmpty })
    await again.stop()
  }

  @Test func aBatchTheLogTookBeforeTheCrashIsNotAppliedTwice() async throws {
    let engine = FlakyLogEngine()
    let outbox = MemoryOutboxStore()
    let (first, store) = try Self.node(engine, outbox, name: "a")
    try await first.start()
    // Appended, but the node crashes before it hears so: its outbox still keeps the batch.
    engine.mode.withLock { $0 = .losesAcknowledgements }
    for index in 0..<3 { store.dispatch(Add(text: "\(index)")) }
    try await first.waitUntilDurable()
    #expect(await SharedLaneTests().eventually { engine.lostAcknowledgements.withLock { $0 } > 0 })
    await first.stop()
    #expect(!outbox.records.isEmpty)

    engine.mode.withLock { $0 = .up }
    let (again, restarted) = try Self.node(engine, outbox, name: "a")
    try await again.start()
    try await again.flush()
    #expect(restarted.state == ["0", "1", "2"])
    #expect(await Self.added(engine) == ["0", "1", "2"])
    #expect(await SharedLaneTests().eventually { outbox.records.isEmpty })
    await again.stop()
  }

  @Test func aNodeUnderAnotherNameAppendsWhatItsPredecessorKeptUnderThePredecessorsName()
    async throws
  {
    let engine = FlakyLogEngine()
    let outbox = MemoryOutboxStore()
    let (first, store) = try Self.node(engine, outbox, name: "old")
    try await first.start()
    engine.mode.withLock { $0 = .down }
    store.dispatch(Add(text: "kept"))
    try await first.waitUntilDurable()
    await first.stop()

    engine.mode.withLock { $0 = .up }
    let (again, restarted) = try Self.node(engine, outbox, name: "new")
    try await again.start()
    try await again.send(Add(text: "mine"))
    #expect(restarted.state == ["kept", "mine"])
    let origins = await engine.inner.entries(of: "default", after: 0, limit: 10).map(
      \.record.origin)
    #expect(origins == ["old", "new"])
    await again.stop()
  }

  @Test func waitingForDurabilityBeforeStartReturnsOnceTheNodeStartedAndKeptTheActions()
    async throws
  {
    let engine = FlakyLogEngine()
    let outbox = MemoryOutboxStore()
    let (lane, store) = try Self.node(engine, outbox, name: "a")
    engine.mode.withLock { $0 = .down }
    store.dispatch(Add(text: "early"))
    let durable = Task { try await lane.waitUntilDurable() }
    try await Task.sleep(for: .milliseconds(20))
    #expect(outbox.records.isEmpty)
    try await lane.start()
    try await durable.value
    #expect(outbox.records.map(\.originSequence) == [1])
    await lane.stop()
  }

  @Test func anOutboxStoreThatFailsIsReportedOnceAndTheLogStillTakesTheActions() async throws {
    let engine = FlakyLogEngine()
    let outbox = MemoryOutboxStore()
    let (lane, store) = try Self.node(engine, outbox, name: "a")
    try await lane.start()
    outbox.failing.withLock { $0 = true }
    for index in 0..<3 { store.dispatch(Add(text: "\(index)")) }
    try await lane.flush()
    #expect(store.state == ["0", "1", "2"])
    #expect(lane.dispatcher.errors.totalCount == 1)
    // With the log down too, nothing keeps the action: waiting for it says why.
    engine.mode.withLock { $0 = .down }
    store.dispatch(Add(text: "unsafe"))
    await #expect(throws: MemoryOutboxStore.Broken.self) { try await lane.waitUntilDurable() }
    await lane.stop()
  }

  @Test func aNodeWhoseOutboxStoreCannotBeReadDoesNotStart() async throws {
    // Its numbers could repeat those of actions the store keeps, which the log would then
    // take for them.
    let outbox = MemoryOutboxStore()
    outbox.failing.withLock { $0 = true }
    let (lane, _) = try Self.node(FlakyLogEngine(), outbox, name: "a")
    await #expect(throws: MemoryOutboxStore.Broken.self) { try await lane.start() }
    await lane.stop()
  }

  /// Two processes named alike (or a predecessor's append still running): the log holds
  /// action 1 of "a" as another action than the one this node's outbox store keeps under it.
  /// The node stops appending, and every send or durability wait ends with the conflict.
  @Test(.timeLimit(.minutes(10)))
  func anOriginTheLogHoldsAsAnotherActionStopsAppendingAndEndsTheWaits() async throws {
    let engine = InMemoryLogEngine()
    func record(_ text: String) throws -> SharedLogRecord {
      SharedLogRecord(
        origin: "a", originSequence: 1, name: "test.add",
        payload: try JSONEncoder().encode(Add(text: text)))
    }
    _ = try await engine.append([try record("theirs")], to: "default")
    let outbox = MemoryOutboxStore()
    try await outbox.keep([try record("mine")], for: "default")
    let (lane, store) = try Self.node(engine, outbox, name: "a")
    try await lane.start()
    let conflict = SharedLaneError.Kind.originConflict(origin: "a", originSequence: 1, sequence: 1)
    await #expect {
      try await lane.send(Add(text: "after"))
    } throws: {
      ($0 as? SharedLaneError)?.kind == conflict
    }
    await #expect {
      try await lane.waitUntilDurable()
    } throws: {
      ($0 as? SharedLaneError)?.kind == conflict
    }
    #expect(store.state == ["theirs"])
    #expect(await engine.head(of: "default") == 1)
    // Nothing is lost silently: the outbox store still keeps the refused action.
    #expect(outbox.records.contains(try record("mine")))
    #expect(lane.dispatcher.errors.totalCount >= 1)
    await lane.stop()
  }

  @Test func waitingForDurabilityAfterStopThrowsCancellation() async throws {
    let (lane, store) = try Self.node(FlakyLogEngine(), MemoryOutboxStore(), name: "a")
    store.dispatch(Add(text: "never started"))
    await lane.stop()
    await #expect(throws: CancellationError.self) { try await lane.waitUntilDurable() }
  }
}

/// An outbox store in memory that can fail on demand.
final class MemoryOutboxStore: SharedOutboxStore {
  struct Broken: Error {}
  struct Key: Hashable {
    let lane: String
    let origin: String
    let originSequence: UInt64
  }

  private let kept = Guarded<[Key: SharedLogRecord]>([:])
  let failing = Guarded(false)

  /// The records kept in every lane, by origin, then origin sequence.
  var records: [SharedLogRecord] { records(of: nil) }

  /// The records kept for `lane` (every lane for `nil`), by origin, then origin sequence.
  func records(of lane: String?) -> [SharedLogRecord] {
    kept.withLock { kept in
      kept.filter { lane == nil || $0.key.lane == lane }.map(\.value)
    }.sorted {
      ($0.origin, $0.originSequence) < ($1.origin, $1.originSequence)
    }
  }

  func keptRecords(of lane: String) async throws -> [SharedLogRecord] {
    try check()
    return records(of: lane)
  }

  func keep(_ records: [SharedLogRecord], for lane: String) async throws {
    try check()
    kept.withLock { kept in
      for record in records {
        let key = Key(lane: lane, origin: record.origin, originSequence: record.originSequence)
        if kept[key] == nil { kept[key] = record }
      }
    }
  }

  func forget(origin: String, through originSequence: UInt64, of lane: String) async throws {
    try check()
    kept.withLock { kept in
      kept = kept.filter {
        $0.key.lane != lane || $0.key.origin != origin || $0.key.originSequence > originSequence
      }
    }
  }

  private func check() throws {
    if failing.withLock({ $0 }) { throw Broken() }
  }
}
