import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// What an inspector holds stays bounded: its clients, the stores it remembers.
@Suite struct InspectorBoundsTests {
  @Test func aClientPastTheLimitIsClosedWithTheReason() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(
      store.dispatcher, configuration: .init(clientLimit: 1))
    let url = inspector.webSocketURL.absoluteString
    let admitted = try await InspectorConnection.open(url)
    await #expect {
      try await InspectorConnection.open(url)
    } throws: { error in
      "\(error)".contains("policyViolation") && "\(error)".contains("at most 1 client(s) at once")
    }
    // The one let in still works.
    store.dispatch(AddTodo(title: "Milk"))
    _ = try await admitted.first { $0["type"] as? String == "record" }
    await admitted.close()
    await inspector.stop()
  }

  @Test func theDefaultLimitIsEight() {
    #expect(Inspector.Configuration().clientLimit == 8)
  }

  @Test func theRecorderForgetsAStoreThatLeftTheLane() async throws {
    let dispatcher = Dispatcher(label: "bounds")
    let kept = Store(initialState: CounterState(), dispatcher: dispatcher, reducer: counterReducer)
    let inspector = try await Inspector.start(dispatcher)
    weak var leftInspected: (any InspectedStore)?
    do {
      let left = Store(initialState: TodoState(), dispatcher: dispatcher, reducer: todoReducer)
      await left.send(ToggleTodo(id: 1))
      leftInspected = dispatcher.inspectedStores.first { $0.name == "TodoState" }
      #expect(inspector.recorder.snapshot().stores.count == 2)
    }
    // Queued after the store's leave.
    await kept.send(Increment())
    let snapshot = inspector.recorder.snapshot()
    #expect(snapshot.stores.map(\.name) == ["CounterState"])
    #expect(snapshot.latest.count == 1)
    #expect(snapshot.base.count == 1)
    // Its initial state and handler table are released.
    #expect(leftInspected == nil)
    await inspector.stop()
  }

  /// A replay blocked on a gate (on the replay thread, with a one-minute deadline: a hang
  /// guard) holds the thread; one more may wait, the next is refused at once.
  @Test func replaysRunOneAtATimeOnTheirThreadAndAtMostTheLimitWait() async {
    let replayer = Replayer(limit: 1)
    let gate = DispatchSemaphore(value: 0)
    let (started, startedNow) = AsyncStream.makeStream(of: Void.self)
    let (finished, finishedNow) = AsyncStream.makeStream(of: Bool.self)
    #expect(
      replayer.submit {
        startedNow.yield()
        _ = gate.wait(timeout: .now() + .seconds(60))
      })
    for await _ in started { break }
    #expect(replayer.submit { finishedNow.yield(Replayer.isCurrentThread) })
    #expect(!replayer.submit {})
    gate.signal()
    var onReplayThread: [Bool] = []
    for await answer in finished {
      onReplayThread.append(answer)
      break
    }
    #expect(onReplayThread == [true])
  }

  /// A toggle replays the reducers (a jump reads the recorded states, and runs none).
  @Test func aTogglesReplayRunsOnTheReplayThread() async throws {
    let onReplayThread = Guarded<Set<Bool>>([])
    let store = Store(
      initialState: CounterState(),
      reducer: Reducer<CounterState>().on(Increment.self) { state, _ in
        onReplayThread.withLock { _ = $0.insert(Replayer.isCurrentThread) }
        state.count += 1
      })
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(Increment())
    store.dispatch(Increment())
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 2 }
    client.send(["id": 1, "command": "toggle", "seq": 1, "skip": true])
    let states = try await client.reply(to: 1)
    #expect(states["type"] as? String == "states")
    #expect(onReplayThread.withLock { $0.contains(true) })
    await client.close()
    await inspector.stop()
  }
}
