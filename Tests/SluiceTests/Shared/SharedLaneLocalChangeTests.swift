import Foundation
import Testing

@testable import Sluice

/// A store on a shared lane changes only through the log: a reset, a transaction, a restored
/// state or an inspector's apply is refused in words.
@Suite struct SharedLaneLocalChangeTests {
  typealias Add = SharedLaneTests.Add

  /// The features refused on `lane`'s errors channel, in order.
  static func refused(_ lane: SharedLane) -> [String] {
    lane.dispatcher.errors.recent.compactMap { event in
      guard case .localOnly(let feature)? = (event.error as? SharedLaneError)?.kind else {
        return nil
      }
      return feature
    }
  }

  // A savepoint written back (Flask's `rollbackState`) is a transaction: refused too.
  @Test func resetAndAWriteBackChangeNothingAndAreReported() async throws {
    let node = try SharedLaneTests.Node(InMemoryLogEngine(), name: "a")
    try await node.lane.start()
    let saved = node.store.state
    try await node.lane.send(Add(text: "one"))
    node.store.reset()
    let store = node.store
    let outcome = await node.lane.dispatcher.transaction { tx in
      try tx.update(store) { $0 = saved }
    }
    try await node.lane.flush()
    #expect(node.store.state == ["one"])
    #expect(Self.refused(node.lane) == ["reset", "transaction"])
    guard case .failed = outcome else {
      Issue.record("the transaction was not refused: \(outcome)")
      return
    }
    await node.lane.stop()
  }

  @Test func aPersistedStateIsNotRestoredOnASharedLane() async throws {
    let storage = InMemoryStorage()
    let key = PersistenceKey<[String]>("list", storage: storage)
    let local = Store(initialState: [String](), reducer: SharedLaneTests.reducer, persistence: key)
    local.dispatch(Add(text: "local"))
    try await local.persistence?.flush()
    let node = try SharedLaneTests.Node(InMemoryLogEngine(), name: "a")
    let shared = Store(
      initialState: [String](), dispatcher: node.lane.dispatcher,
      reducer: SharedLaneTests.reducer, persistence: key)
    #expect(shared.state == [])
    #expect(Self.refused(node.lane) == ["persistence restore"])
  }

  @Test func anInspectorCannotReplaceAStateOnASharedLane() async throws {
    let node = try SharedLaneTests.Node(InMemoryLogEngine(), name: "a")
    try await node.lane.start()
    try await node.lane.send(Add(text: "one"))
    let inspected = TypedInspectedStore(core: node.store.core)
    await #expect(throws: SharedLaneError(.localOnly("state replacement"))) {
      _ = try await Dispatcher.replaceInspectedStates([(inspected, ["forked"])])
    }
    try await node.lane.flush()
    #expect(node.store.state == ["one"])
    #expect(Self.refused(node.lane) == ["state replacement"])
    await node.lane.stop()
  }

}
