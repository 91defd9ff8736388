import Sluice
import Synchronization
import Testing

@testable import SluiceInspector

/// What the recorder does on the lane: it keeps values, and nothing else (issue 27).
@Suite struct RecorderLaneTests {
  /// A counter: how often a value was reflected (encoded for the page), a reducer ran.
  final class Reflections: Sendable {
    let count = Atomic(0)
  }

  /// A state whose encoding is observable: each reflection counts.
  struct CountedState: Sendable, Equatable, CustomReflectable {
    var value = 0
    let reflections: Reflections

    var customMirror: Mirror {
      reflections.count.add(1, ordering: .relaxed)
      return Mirror(self, children: ["value": value])
    }

    static func == (lhs: CountedState, rhs: CountedState) -> Bool { lhs.value == rhs.value }
  }

  /// An action whose encoding is observable.
  struct CountedAction: Action, CustomReflectable {
    let reflections: Reflections

    var customMirror: Mirror {
      reflections.count.add(1, ordering: .relaxed)
      return Mirror(self, children: [])
    }
  }

  @Test func theLaneEncodesNothingWhileNoPageReads() async throws {
    let reflections = Reflections()
    let store = Store(
      initialState: CountedState(reflections: reflections),
      reducer: Reducer<CountedState>().on(CountedAction.self) { state, _ in state.value += 1 })
    let inspector = try await Inspector.start(store.dispatcher, configuration: .init(capacity: 3))
    for _ in 0..<10 { await store.send(CountedAction(reflections: reflections)) }
    #expect(reflections.count.load(ordering: .relaxed) == 0)
    #expect(inspector.recorder.snapshot().records.count == 3)
    // A page reads the records: their payloads and states are encoded then.
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    let snapshot = try await client.first { $0["type"] as? String == "snapshot" }.message
    let records = snapshot["records"] as? [[String: Any]] ?? []
    #expect(records.map { ($0["changes"] as? [Any])?.count } == [1, 1, 1])
    #expect(reflections.count.load(ordering: .relaxed) > 0)
    await client.close()
    await inspector.stop()
  }

  @Test func aFullRingMovesTheBaseWithoutRunningAReducer() async throws {
    let calls = Reflections()
    let reducer = Reducer<CounterState>().on(Increment.self) { state, _ in
      calls.count.add(1, ordering: .relaxed)
      state.count += 1
    }
    let store = Store(initialState: CounterState(), reducer: reducer)
    let inspector = try await Inspector.start(store.dispatcher, configuration: .init(capacity: 2))
    for _ in 0..<5 { await store.send(Increment()) }
    // The live store's reducer ran once per action; the ring let three records go.
    #expect(calls.count.load(ordering: .relaxed) == 5)
    let snapshot = inspector.recorder.snapshot()
    #expect(snapshot.records.map(\.seq) == [4, 5])
    #expect(snapshot.base.values.compactMap { $0 as? CounterState } == [CounterState(count: 3)])
    #expect(snapshot.latest.values.compactMap { $0 as? CounterState } == [CounterState(count: 5)])
    await inspector.stop()
  }

  @Test func aJumpShowsTheRecordedStateWhenTheReducerIsNotPure() async throws {
    // The reducer reads a value that changes between the live step and any replay of it.
    let ticks = Reflections()
    let reducer = Reducer<CounterState>().on(Increment.self) { state, _ in
      state.count = ticks.count.add(1, ordering: .relaxed).newValue * 10
    }
    let store = Store(initialState: CounterState(), reducer: reducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    _ = try await client.first { $0["type"] as? String == "snapshot" }
    for _ in 0..<3 { store.dispatch(Increment()) }
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 3 }
    func count(_ reply: [String: Any]) -> Int? {
      let stores = reply["stores"] as? [[String: Any]] ?? []
      return (stores.first?["state"] as? [String: Any])?["count"] as? Int
    }
    ticks.count.store(100, ordering: .relaxed)
    client.send(["id": 1, "command": "jump", "seq": 2])
    #expect(count(try await client.reply(to: 1)) == 20)
    client.send(["id": 2, "command": "detail", "seq": 3])
    let detail = try await client.reply(to: 2)
    let stores = detail["stores"] as? [[String: Any]] ?? []
    #expect((stores.first?["before"] as? [String: Any])?["count"] as? Int == 20)
    #expect((stores.first?["after"] as? [String: Any])?["count"] as? Int == 30)
    client.send(["id": 3, "command": "jump", "seq": 3])
    #expect(count(try await client.reply(to: 3)) == 30)
    // Skipping a record replays the reducers from it on, from the recorded state before it.
    client.send(["id": 4, "command": "toggle", "seq": 2, "skip": true])
    #expect(count(try await client.reply(to: 4)) == 1_010)
    #expect(store.state.count == 30)
    await client.close()
    await inspector.stop()
  }
}
