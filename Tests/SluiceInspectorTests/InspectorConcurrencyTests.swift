import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceInspector

/// The inspector attached, detached and used while other threads dispatch and hold the lane.
@Suite struct InspectorConcurrencyTests {
  /// A thread of its own that runs `body`; ``ended()`` waits for its end.
  final class TestThread: Sendable {
    private let end: AsyncStream<Never>

    init(_ body: @escaping @Sendable () -> Void) {
      let (end, finished) = AsyncStream.makeStream(of: Never.self)
      self.end = end
      Thread {
        body()
        finished.finish()
      }.start()
    }

    /// Returns `true` once the thread ended, or `false` past ``hangGuard`` (its expiry means a
    /// deadlock, which fails the test instead of hanging the run). Called once.
    func ended() async -> Bool {
      await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          for await _ in self.end {}
          return !Task.isCancelled
        }
        group.addTask {
          try? await Task.sleep(for: hangGuard)
          return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
      }
    }
  }

  @Test func attachingAndDetachingWhileThreadsDispatchLosesNoActionAndKeepsTheOrder() async throws {
    let dispatcher = Dispatcher(label: "busy")
    let store = Store(initialState: CounterState(), dispatcher: dispatcher, reducer: counterReducer)
    let running = Atomic(true)
    let dispatched = Atomic(0)
    let threads = [DispatchMode.sync, .async].map { mode in
      TestThread {
        // Paced (at most 2,000 dispatches a second per thread), so that the tests running
        // beside this one on two cores are not starved.
        while running.value {
          for _ in 0..<10 { dispatcher.dispatch(Increment(), mode: mode) }
          dispatched.add(10)
          usleep(5_000)
        }
      }
    }
    // Stops the threads when a step below throws, too.
    defer { running.value = false }
    var seqs: [Int] = []
    for _ in 0..<5 {
      let inspector = try await Inspector.start(dispatcher, configuration: .init(capacity: 100))
      let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
      _ = try await client.first { $0["type"] as? String == "record" }
      await client.close()
      let received = client.messages.compactMap {
        (InspectorConnection.parse($0)?["record"] as? [String: Any])?["seq"] as? Int
      }
      #expect(received == received.sorted())
      seqs += received
      await inspector.stop()
    }
    running.value = false
    for thread in threads { #expect(await thread.ended()) }
    await store.send(Increment())
    #expect(store.state.count == dispatched.value + 1)
    #expect(!seqs.isEmpty)
  }

  @Test func applyWaitsForALockWithoutBlockingTheServer() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(AddTodo(title: "kept"))
    store.dispatch(AddTodo(title: "undone by apply"))
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 2 }
    let lock = store.dispatcher.pause("held by the test")
    client.send(["id": 1, "command": "apply", "seq": 1])
    let other = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    other.send(["id": 2, "command": "jump", "seq": 1])
    let states = try await other.reply(to: 2)
    #expect(states["type"] as? String == "states")
    #expect(store.state.items.count == 2)
    lock.release()
    let applied = try await client.reply(to: 1)
    #expect(applied["type"] as? String == "applied")
    #expect(store.state.items.map(\.title) == ["kept"])
    await other.close()
    await client.close()
    await inspector.stop()
  }

  /// A value shared by the test's threads.
  final class Atomic<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
      get { lock.withLock { stored } }
      set { lock.withLock { stored = newValue } }
    }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
  }

  /// An action whose payload, when the ring lets it go, dispatches into the store from its
  /// `deinit`.
  final class Boomerang: Sendable {
    let store: Store<CounterState>
    init(store: Store<CounterState>) { self.store = store }
    deinit { store.dispatch(Increment()) }
  }

  struct Throw: Action {
    let boomerang: Boomerang
  }

  @Test func valuesTheRingLetsGoMayDispatchFromTheirDeinit() async throws {
    let store = Store(
      initialState: CounterState(),
      reducer: counterReducer.on(Throw.self) { state, _ in state.count += 1_000 })
    let inspector = try await Inspector.start(store.dispatcher, configuration: .init(capacity: 3))
    let thread = TestThread {
      for _ in 0..<20 { store.dispatch(Throw(boomerang: Boomerang(store: store))) }
    }
    // Milliseconds (each action's store is named, not walked: see InspectorValueTests); the
    // guard is for a deadlock only.
    #expect(await thread.ended())
    await inspector.stop()
    await store.send(Increment())
    // 20 throws; every boomerang the ring let go came back; the ones it still held came back
    // when the inspector stopped.
    #expect(store.state.count >= 20 * 1_000 + 17)
  }

  struct Page: Equatable, Sendable {
    var text = ""
  }

  struct Write: Action {
    var text: String
  }

  @Test func aClientGetsTheLogWithoutHolesWhileTheAppOutrunsIt() async throws {
    let store = Store(
      initialState: Page(),
      reducer: Reducer<Page>().on(Write.self) { page, action in page.text = action.text })
    let inspector = try await Inspector.start(store.dispatcher, configuration: .init(capacity: 8))
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    // Each record carries 4 KiB (old → new), dispatched in bursts faster than the connection
    // sends them; a follower that lost events would start over from a snapshot.
    let filler = String(repeating: "x", count: 2 << 10)
    var written = 0
    while written < 1_000 {
      for _ in 0..<20 {
        written += 1
        store.dispatch(Write(text: "\(written)" + filler))
      }
      // Paced, so that the tests beside this one keep their share of the two cores.
      try await Task.sleep(for: .milliseconds(5))
    }
    let last = written
    let newest: ([String: Any]) -> Bool = { message in
      if (message["record"] as? [String: Any])?["seq"] as? Int == last { return true }
      let kept = message["records"] as? [[String: Any]]
      return message["type"] as? String == "snapshot" && kept?.last?["seq"] as? Int == last
    }
    _ = try await client.first(where: newest)
    // Each record follows the one before it, or the snapshot that started over.
    var seen = 0
    for text in client.messages {
      guard let message = InspectorConnection.parse(text) else { continue }
      switch message["type"] as? String {
      case "snapshot":
        let kept = (message["records"] as? [[String: Any]]) ?? []
        seen = max(seen, (kept.last?["seq"] as? Int) ?? 0)
      case "record":
        let seq = ((message["record"] as? [String: Any])?["seq"] as? Int) ?? -1
        #expect(seq == seen + 1, "record \(seq) after \(seen)")
        seen = max(seen, seq)
      default: break
      }
    }
    #expect(seen == last)
    await client.close()
    await inspector.stop()
  }
}

extension InspectorConcurrencyTests.Atomic where Value == Int {
  func add(_ amount: Int) { update { $0 += amount } }
}
