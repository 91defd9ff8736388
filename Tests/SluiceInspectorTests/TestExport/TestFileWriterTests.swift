import Foundation
import Sluice
import SluiceInspector
import Testing

/// A store whose effect answers a ping with pongs, a note no reducer handles, and the end.
struct PingState: Equatable, Sendable {
  var pings = 0
  var pongs: [Int] = []
  var done = false
}

struct Ping: Action {
  var count: Int
}

struct Pong: Action, Equatable {
  var value: Int
}

struct PingNoted: Action, Equatable {
  var text: String
}

/// Not `Equatable`: received by type.
struct PingsDone: Action {}

let pingReducer = Reducer<PingState>()
  .on(Ping.self) { state, _ in state.pings += 1 }
  .on(Pong.self) { state, action in state.pongs.append(action.value) }
  .on(PingsDone.self) { state, _ in state.done = true }

let pingEffects = Effects<PingState>()
  .on(Ping.self) { ping, context in
    for value in 1...max(1, ping.count) { context.dispatch(Pong(value: value)) }
    context.dispatch(PingNoted(text: "pinged"))
    context.dispatch(PingsDone())
  }

/// Record → test for a store that runs effects: what they dispatched is received, not sent.
@Suite struct TestFileWriterTests {
  static let withEffects = TestExport(
    reducers: ["PingState": "pingReducer"], effects: ["PingState": "pingEffects"])

  /// A store pinged once (records 1 to 5: Ping, Pong 1, Pong 2, PingNoted, PingsDone), with
  /// an inspector writing tests as `export` says.
  static func pinged(
    _ export: TestExport, middleware: [Middleware<PingState>] = []
  ) async throws -> (Store<PingState>, Inspector) {
    let store = Store(
      initialState: PingState(), reducer: pingReducer, middleware: middleware,
      effects: pingEffects)
    let inspector = try await Inspector.start(
      store.dispatcher, configuration: .init(testExport: export))
    store.dispatch(Ping(count: 2))
    await store.dispatcher.settle()
    return (store, inspector)
  }

  @Test func whatAnEffectOfTheTestDispatchedIsReceivedByValueOrByType() async throws {
    let (store, inspector) = try await Self.pinged(Self.withEffects)
    let file = try inspector.testFile(from: 1, through: 5)
    await inspector.stop()
    #expect(
      file.source.contains(
        """
          let store = TestStore(
            initialState: PingState(pings: 0, pongs: [], done: false),
            reducer: pingReducer,
            effects: pingEffects)
        """))
    let calls = file.source.split(separator: "\n").filter { $0.contains("await store.") }
    #expect(
      calls == [
        "  await store.send(Ping(count: 2)) {",
        "  await store.receive(Pong(value: 1)) {",
        "  await store.receive(Pong(value: 2)) {",
        // Its reducer has no handler, but the test store receives it all the same.
        #"  await store.receive(PingNoted(text: "pinged"))"#,
        "  await store.receive(PingsDone.self) {",
        "  await store.finish()",
      ])
    #expect(file.source.contains("by the effect on Ping of record 1"))
    // The store stays on the lane: the inspector forgets a store that left it.
    withExtendedLifetime(store) {}
  }

  @Test func withoutItsEffectsATestSendsEveryActionItsStoreReduced() async throws {
    let (store, inspector) = try await Self.pinged(
      TestExport(reducers: ["PingState": "pingReducer"]))
    let file = try inspector.testFile(from: 1, through: 5)
    await inspector.stop()
    let calls = file.source.split(separator: "\n").filter { $0.contains("await store.") }
    #expect(
      calls == [
        "  await store.send(Ping(count: 2)) {",
        "  await store.send(Pong(value: 1)) {",
        "  await store.send(Pong(value: 2)) {",
        "  await store.send(PingsDone()) {",
      ])
    #expect(!file.source.contains("effects:"))
    // The store stays on the lane: the inspector forgets a store that left it.
    withExtendedLifetime(store) {}
  }

  @Test func aRangeStartingAfterTheEffectsActionSendsWhatTheyDispatched() async throws {
    let (store, inspector) = try await Self.pinged(Self.withEffects)
    let file = try inspector.testFile(from: 2, through: 5)
    await inspector.stop()
    #expect(!file.source.contains("receive("))
    #expect(file.source.contains("  await store.send(Pong(value: 1)) {"))
    // The store stays on the lane: the inspector forgets a store that left it.
    withExtendedLifetime(store) {}
  }

  @Test func aRangeEndingBeforeItsEffectsDidLeavesTheRestOutOfTheTest() async throws {
    let (store, inspector) = try await Self.pinged(Self.withEffects)
    let file = try inspector.testFile(from: 1, through: 2)
    await inspector.stop()
    #expect(file.source.contains("  await store.receive(Pong(value: 1)) {"))
    #expect(!file.source.contains("Pong(value: 2)"))
    #expect(!file.source.contains("store.finish()"))
    #expect(file.source.contains("  store.exhaustivity = .off\n}"))
    // The store stays on the lane: the inspector forgets a store that left it.
    withExtendedLifetime(store) {}
  }

  @Test func anActionOfTheEffectsThatMiddlewareReplacedIsAnError() async throws {
    let louder = Middleware<PingState>.intercept { action, _ in
      guard let pong = action as? Pong, pong.value < 10 else { return .proceed }
      return .replace(Pong(value: pong.value * 10))
    }
    let (store, inspector) = try await Self.pinged(Self.withEffects, middleware: [louder])
    #expect(store.state.pongs == [10, 20])
    #expect {
      try inspector.testFile(from: 1, through: 5)
    } throws: { error in
      "\(error)".contains("replaced by PingState's middleware")
    }
    await inspector.stop()
  }

  @Test func leavingOutAnActionTheEffectsDispatchedIsAnError() async throws {
    let (store, inspector) = try await Self.pinged(Self.withEffects)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    client.send(["id": 1, "command": "toggle", "seq": 3, "skip": true])
    _ = try await client.reply(to: 1)
    client.send(["id": 2, "command": "exportTest", "from": 1, "through": 5])
    let reply = try await client.reply(to: 2)
    #expect(reply["type"] as? String == "error")
    #expect((reply["message"] as? String)?.contains("record 3 (Pong) is left out") == true)
    // A range that does not send the Ping leaves nothing to receive: fine.
    client.send(["id": 3, "command": "exportTest", "from": 2, "through": 5])
    let test = try await client.reply(to: 3)
    #expect(test["type"] as? String == "test")
    #expect((test["source"] as? String)?.contains("Pong(value: 2)") == false)
    await client.close()
    await inspector.stop()
    // The store stays on the lane: the inspector forgets a store that left it.
    withExtendedLifetime(store) {}
  }
}

/// A second store of the same lane whose effect answers a ping too.
struct EchoState: Equatable, Sendable {
  var pings = 0
  var echoes: [Int] = []
}

struct Echo: Action, Equatable {
  var value: Int
}

let echoReducer = Reducer<EchoState>()
  .on(Ping.self) { state, _ in state.pings += 1 }
  .on(Echo.self) { state, action in state.echoes.append(action.value) }

let echoEffects = Effects<EchoState>()
  .on(Ping.self) { _, context in context.dispatch(Echo(value: 7)) }

/// Record → test across stores, and what the page leaves out.
@Suite struct TestFileWriterSpanTests {
  /// One action that reaches two stores with effects: each store's test receives what its own
  /// effects dispatched, never the other store's. Before, the cause of an effect's action named
  /// the parent action only, and both tests received both children.
  @Test func eachStoresTestReceivesOnlyWhatItsOwnEffectsDispatched() async throws {
    let ping = Store(initialState: PingState(), reducer: pingReducer, effects: pingEffects)
    let echo = Store(
      initialState: EchoState(), dispatcher: ping.dispatcher, reducer: echoReducer,
      effects: echoEffects)
    let export = TestExport(
      reducers: ["PingState": "pingReducer", "EchoState": "echoReducer"],
      effects: ["PingState": "pingEffects", "EchoState": "echoEffects"])
    let inspector = try await Inspector.start(
      ping.dispatcher, configuration: .init(testExport: export))
    ping.dispatch(Ping(count: 1))
    await ping.dispatcher.settle()
    #expect(echo.state.echoes == [7])
    // Ping, Pong 1, PingNoted, PingsDone and Echo, in the order the effects ran.
    let file = try inspector.testFile(from: 1, through: 5)
    await inspector.stop()
    let tests = file.source.components(separatedBy: "@Test func ").dropFirst()
    let pingTest = try #require(tests.first { $0.hasPrefix("pingState") })
    let echoTest = try #require(tests.first { $0.hasPrefix("echoState") })
    #expect(pingTest.contains("await store.receive(Pong(value: 1))"))
    #expect(!pingTest.contains("Echo("))
    #expect(echoTest.contains("await store.receive(Echo(value: 7))"))
    #expect(!echoTest.contains("Pong("))
    #expect(echoTest.contains("await store.finish()"))
  }

  /// A record skipped in the page is left out of the test, and the file says so.
  @Test func theFileNamesTheSkippedActionsItLeftOut() async throws {
    let store = Store(initialState: PingState(), reducer: pingReducer)
    let inspector = try await Inspector.start(
      store.dispatcher,
      configuration: .init(testExport: TestExport(reducers: ["PingState": "pingReducer"])))
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    for value in 1...3 { store.dispatch(Pong(value: value)) }
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 3 }
    client.send(["id": 1, "command": "toggle", "seq": 2, "skip": true])
    _ = try await client.reply(to: 1)
    client.send(["id": 2, "command": "exportTest", "from": 1, "through": 3])
    let source = try #require(try await client.reply(to: 2)["source"] as? String)
    await client.close()
    await inspector.stop()
    #expect(source.contains("// Left out, as skipped in the inspector: #2 Pong."))
    #expect(!source.contains("Pong(value: 2)"))
    #expect(source.contains("Pong(value: 3)"))
  }
}
