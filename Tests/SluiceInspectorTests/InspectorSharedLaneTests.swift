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
}
