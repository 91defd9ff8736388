import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// An inspector attached to a shared lane: its forks are the client's own, but applying one
/// would change the node's states outside the log, so it is refused in words.
@Suite struct InspectorSharedLaneTests {
  struct Add: Action, Codable { let text: String }

  @Test(.timeLimit(.minutes(10))) func applyIsRefusedOnASharedLaneAndChangesNothing()
    async throws
  {
    let lane = try SharedLane(
      engine: InMemoryLogEngine(), actions: SharedActions().register(Add.self, as: "add"),
      node: "a")
    let store = Store(
      initialState: [String](), dispatcher: lane.dispatcher,
      reducer: Reducer<[String]>().on(Add.self) { state, action in state.append(action.text) })
    try await lane.start()
    let inspector = try await Inspector.start(lane.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    _ = try await client.first { $0["type"] as? String == "snapshot" }
    try await lane.send(Add(text: "one"))
    try await lane.send(Add(text: "two"))
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 2 }

    client.send(["id": 1, "command": "jump", "seq": 1])
    _ = try await client.reply(to: 1)
    client.send(["id": 2, "command": "apply"])
    let refused = try await client.reply(to: 2)
    #expect(refused["type"] as? String == "error")
    #expect(refused["code"] as? String == "failed")
    #expect((refused["message"] as? String)?.contains("shared lane") == true)
    try await lane.flush()
    #expect(store.state == ["one", "two"])

    await client.close()
    await inspector.stop()
    await lane.stop()
  }

  /// Entries a node applies in one step of its lane (here, the three node "b" sent before node
  /// "a" started) are each a record of their own, with the node that sent it as its cause.
  @Test(.timeLimit(.minutes(10))) func eachEntryOfABatchIsARecordWithItsNode() async throws {
    let engine = InMemoryLogEngine()
    let actions = SharedActions().register(Add.self, as: "add")
    let reducer = Reducer<[String]>().on(Add.self) { state, action in state.append(action.text) }
    let other = try SharedLane(engine: engine, actions: actions, node: "b")
    let otherStore = Store(initialState: [String](), dispatcher: other.dispatcher, reducer: reducer)
    try await other.start()
    for text in ["one", "two", "three"] { try await other.send(Add(text: text)) }
    let lane = try SharedLane(engine: engine, actions: actions, node: "a")
    let store = Store(initialState: [String](), dispatcher: lane.dispatcher, reducer: reducer)
    let inspector = try await Inspector.start(lane.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    try await lane.start()
    try await lane.send(Add(text: "four"))
    let records = { () -> [[String: Any]] in
      client.messages.compactMap { InspectorConnection.parse($0)?["record"] as? [String: Any] }
        .filter { ($0["action"] as? [String: Any])?["type"] as? String == "Add" }
    }
    _ = try await client.first {
      let action = ($0["record"] as? [String: Any])?["action"] as? [String: Any]
      return (action?["payload"] as? [String: Any])?["text"] as? String == "four"
    }
    let texts = records().map {
      (($0["action"] as? [String: Any])?["payload"] as? [String: Any])?["text"] as? String
    }
    #expect(texts == ["one", "two", "three", "four"])
    let nodes = records().map { ($0["cause"] as? [String: Any])?["node"] as? String }
    #expect(nodes == ["b", "b", "b", "a"])
    let kinds = Set(records().map { ($0["cause"] as? [String: Any])?["kind"] as? String })
    #expect(kinds == ["log"])
    #expect(store.state == ["one", "two", "three", "four"])
    await client.close()
    await inspector.stop()
    await lane.stop()
    await other.stop()
    withExtendedLifetime(otherStore) {}
  }
}
