import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// The protocol, spoken by a real WebSocket client to a real inspector.
@Suite struct InspectorProtocolTests {
  @Test func aClientNeedsTheTokenAndTheInspectorsOrigin() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    defer { Task { await inspector.stop() } }
    let base = "ws://127.0.0.1:\(inspector.port)/ws"
    await #expect(throws: (any Error).self) { try await InspectorConnection.open(base) }
    await #expect(throws: (any Error).self) {
      try await InspectorConnection.open(base + "?token=0123456789abcdef0123456789abcdef")
    }
    await #expect(throws: (any Error).self) {
      try await InspectorConnection.open(base + "?token=\(inspector.token)x")
    }
    await #expect(throws: (any Error).self) {
      try await InspectorConnection.open(
        base + "?token=\(inspector.token)", origin: "http://evil.example")
    }
    await #expect(throws: (any Error).self) {
      try await InspectorConnection.open(
        base + "?token=\(inspector.token)", origin: "http://127.0.0.1:\(inspector.port + 1)")
    }
    let fromPage = try await InspectorConnection.open(
      base + "?token=\(inspector.token)", origin: "http://127.0.0.1:\(inspector.port)")
    _ = try await fromPage.first { $0["type"] as? String == "hello" }
    await fromPage.close()
    await inspector.stop()
  }

  /// What the protocol article says a refused client gets: status 400 (SwiftNIO's answer to an
  /// upgrade its upgrader declined), whatever check failed, and 101 when every check passes.
  @Test func aRefusedUpgradeIsAnsweredWithStatus400() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let port = inspector.port
    let token = inspector.token
    #expect(await RawHTTP.upgradeStatus(port: port, target: "/ws") == 400)
    #expect(await RawHTTP.upgradeStatus(port: port, target: "/ws?token=\(token)x") == 400)
    #expect(
      await RawHTTP.upgradeStatus(
        port: port, target: "/ws?token=\(token)", origin: "http://evil.example") == 400)
    #expect(
      await RawHTTP.upgradeStatus(
        port: port, target: "/ws?token=\(token)", host: "rebound.example:\(port)") == 400)
    #expect(
      await RawHTTP.upgradeStatus(
        port: port, target: "/ws?token=\(token)", origin: "http://127.0.0.1:\(port)") == 101)
    await inspector.stop()
  }

  @Test func helloSnapshotThenARecordPerStepWithItsSiteAndCause() async throws {
    let dispatcher = Dispatcher(label: "todos")
    let store = Store(initialState: TodoState(), dispatcher: dispatcher, reducer: todoReducer)
    store.dispatch(AddTodo(title: "before"))
    let inspector = try await Inspector.start(dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    let hello = try await client.first { $0["type"] as? String == "hello" }
    #expect(hello.index == 0)
    #expect(hello.message["protocol"] as? Int == 1)
    #expect(hello.message["lane"] as? String == "todos")
    let snapshot = try await client.first { $0["type"] as? String == "snapshot" }.message
    let stores = try #require(snapshot["stores"] as? [[String: Any]])
    #expect(stores.count == 1)
    #expect(stores.first?["name"] as? String == "TodoState")
    let state = try #require(stores.first?["state"] as? [String: Any])
    #expect((state["items"] as? [Any])?.count == 1)
    #expect((snapshot["records"] as? [Any])?.isEmpty == true)

    let line = #line + 1
    store.dispatch(AddTodo(title: "Milk"))
    let record = try await client.first { $0["type"] as? String == "record" }.message
    let body = try #require(record["record"] as? [String: Any])
    #expect(body["kind"] as? String == "action")
    let action = try #require(body["action"] as? [String: Any])
    #expect(action["type"] as? String == "AddTodo")
    #expect((action["payload"] as? [String: Any])?["title"] as? String == "Milk")
    #expect(body["stores"] as? [String] == ["s1"])
    let site = try #require(body["site"] as? [String: Any])
    #expect(site["file"] as? String == "SluiceInspectorTests/InspectorProtocolTests.swift")
    #expect(site["line"] as? Int == line)
    #expect((body["cause"] as? [String: Any])?["kind"] as? String == "outside")
    let changes = try #require(body["changes"] as? [[String: Any]])
    #expect(changes.map { $0["path"] as? String } == ["items[1]", "nextID"])
    #expect(changes.last?["old"] as? Int == 2)
    #expect(changes.last?["new"] as? Int == 3)
    #expect(changes.first?["old"] == nil)
    await client.close()
    await inspector.stop()
  }

  @Test func causesNameTheEffectOrTheStepThatDispatched() async throws {
    let dispatcher = Dispatcher(label: "causes")
    let effects = Effects<TodoState>().on(AddTodo.self) { _, context in
      context.dispatch(SetFilter(filter: .open))
    }
    let store = Store(
      initialState: TodoState(), dispatcher: dispatcher, reducer: todoReducer, effects: effects)
    let counter = Store(
      initialState: CounterState(), dispatcher: dispatcher, reducer: counterReducer)
    let observer = counter.observe(\.count) { change in
      if change.new == 101 { dispatcher.dispatch(ToggleTodo(id: 1)) }
    }
    let inspector = try await Inspector.start(dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    counter.dispatch(Increment())
    store.dispatch(AddTodo(title: "Milk"))
    func record(_ type: String) async throws -> [String: Any] {
      let message = try await client.first {
        (($0["record"] as? [String: Any])?["action"] as? [String: Any])?["type"] as? String == type
      }.message
      return try #require(message["record"] as? [String: Any])
    }
    let add = try await record("AddTodo")
    let addSeq = try #require(add["seq"] as? Int)
    #expect(Set(add["stores"] as? [String] ?? []) == ["s1", "s2"])
    let toggle = try await record("ToggleTodo")
    let toggleCause = try #require(toggle["cause"] as? [String: Any])
    #expect(toggleCause["kind"] as? String == "lane")
    #expect(toggleCause["parent"] as? Int == addSeq)
    #expect(toggleCause["observerOf"] as? String == "CounterState")
    let filter = try await record("SetFilter")
    let filterCause = try #require(filter["cause"] as? [String: Any])
    #expect(filterCause["kind"] as? String == "effect")
    #expect(filterCause["parent"] as? Int == addSeq)
    #expect((filterCause["effect"] as? String)?.contains("AddTodo") == true)

    let why = 900
    client.send(["id": why, "command": "why", "store": "s1", "path": "filter"])
    let reply = try await client.reply(to: why)
    let steps = try #require(reply["steps"] as? [[String: Any]])
    #expect(steps.count == 1)
    #expect(steps.first?["chain"] as? [Int] == [filter["seq"] as? Int ?? -1, addSeq])
    observer.cancel()
    await client.close()
    await inspector.stop()
  }

  @Test func aTransactionIsOneRecordWithItsSiteAndCause() async throws {
    let dispatcher = Dispatcher()
    let todos = Store(initialState: TodoState(), dispatcher: dispatcher, reducer: todoReducer)
    let counter = Store(
      initialState: CounterState(), dispatcher: dispatcher, reducer: counterReducer)
    let inspector = try await Inspector.start(dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    let line = #line + 1
    let outcome = await dispatcher.transaction("plan") { tx in
      tx.dispatch(AddTodo(title: "a"))
      try tx.update(counter) { $0.count = 7 }
    }
    guard case .committed = outcome else {
      Issue.record("\(outcome)")
      return
    }
    _ = await dispatcher.transaction("aborted") { tx in
      tx.dispatch(AddTodo(title: "never"))
      try tx.abort()
    }
    do {
      let message = try await client.first {
        ($0["record"] as? [String: Any])?["kind"] as? String == "transaction"
      }.message
      let record = try #require(message["record"] as? [String: Any])
      #expect((record["action"] as? [String: Any])?["type"] as? String == "plan")
      #expect(Set(record["stores"] as? [String] ?? []) == ["s1", "s2"])
      #expect((record["site"] as? [String: Any])?["line"] as? Int == line)
      #expect((record["cause"] as? [String: Any])?["kind"] as? String == "outside")
      let paths = (record["changes"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
      #expect(Set(paths) == ["items[0]", "nextID", "count"])
    }
    todos.dispatch(SetFilter(filter: .open))
    _ = try await client.first {
      (($0["record"] as? [String: Any])?["action"] as? [String: Any])?["type"] as? String
        == "SetFilter"
    }
    let types = client.messages.compactMap {
      ((InspectorConnection.parse($0)?["record"] as? [String: Any])?["action"] as? [String: Any])?[
        "type"] as? String
    }
    #expect(types == ["plan", "SetFilter"], "the aborted transaction leaves no record")
    await client.close()
    await inspector.stop()
  }

  @Test func observersAreListedAndWhyFollowsWhatEachReads() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let subscriptions = [
      store.observe { _ in },
      store.observe(\.items) { _ in },
      store.observe(\.items) { _ in },
      store.observe(\.filter) { _ in },
      store.observe(\.openCount) { _ in },
    ]
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(AddTodo(title: "a"))
    store.dispatch(SetFilter(filter: .open))
    store.dispatch(ToggleTodo(id: 1))
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 3 }
    client.send(["id": 1, "command": "observers"])
    let reply = try await client.reply(to: 1)
    let observers = try #require(
      (reply["stores"] as? [[String: Any]])?.first?["observers"] as? [[String: Any]])
    let kinds = observers.compactMap { $0["kind"] as? String }
    #expect(kinds == ["wholeState", "keyPath", "keyPath", "keyPath"], "\(observers)")
    let byKeyPath = Dictionary(
      observers.compactMap { o in (o["keyPath"] as? String).map { ($0, o) } },
      uniquingKeysWith: { a, _ in a })
    #expect(byKeyPath["\\TodoState.items"]?["path"] as? String == "items")
    #expect(byKeyPath["\\TodoState.items"]?["count"] as? Int == 2)
    #expect(byKeyPath["\\TodoState.filter"]?["path"] as? String == "filter")
    let computed = observers.first { ($0["keyPath"] as? String)?.contains("computed") == true }
    #expect(computed != nil && computed?["path"] is NSNull)
    #expect(observers.first?["kind"] as? String == "wholeState")
    #expect(observers.first?["path"] as? String == "")

    client.send(["id": 2, "command": "why", "store": "s1", "path": "items"])
    let items = try #require(try await client.reply(to: 2)["steps"] as? [[String: Any]])
    #expect(items.compactMap { $0["seq"] as? Int } == [3, 1])
    client.send(["id": 3, "command": "why", "store": "s1", "path": ""])
    let whole = try #require(try await client.reply(to: 3)["steps"] as? [[String: Any]])
    #expect(whole.compactMap { $0["seq"] as? Int } == [3, 2, 1])
    withExtendedLifetime(subscriptions) {}
    await client.close()
    await inspector.stop()
  }

  @Test func aStoreMadeAfterTheSnapshotIsAnnouncedBeforeItsFirstRecord() async throws {
    let dispatcher = Dispatcher()
    let todos = Store(initialState: TodoState(), dispatcher: dispatcher, reducer: todoReducer)
    let inspector = try await Inspector.start(dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    let counter = Store(
      initialState: CounterState(count: 5), dispatcher: dispatcher, reducer: counterReducer)
    counter.dispatch(Increment())
    let announced = try await client.first { $0["type"] as? String == "store" }
    let store = try #require(announced.message["store"] as? [String: Any])
    #expect(store["id"] as? String == "s2")
    #expect(store["name"] as? String == "CounterState")
    #expect((store["state"] as? [String: Any])?["count"] as? Int == 5)
    let record = try await client.first(from: announced.index) {
      $0["type"] as? String == "record"
    }
    let changes = (record.message["record"] as? [String: Any])?["changes"] as? [[String: Any]]
    #expect(changes?.first?["store"] as? String == "s2")
    #expect(changes?.first?["new"] as? Int == 6)
    withExtendedLifetime(todos) {}
    await client.close()
    await inspector.stop()
  }

  @Test func jumpAndToggleRunInAForkAndOnlyApplyChangesTheLiveStore() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    _ = try await client.first { $0["type"] as? String == "snapshot" }
    for title in ["a", "b", "c"] { store.dispatch(AddTodo(title: title)) }
    let last = try await client.first {
      (($0["record"] as? [String: Any])?["seq"] as? Int) == 3
    }
    _ = last
    func titles(_ reply: [String: Any]) -> [String] {
      let stores = reply["stores"] as? [[String: Any]] ?? []
      let state = stores.first?["state"] as? [String: Any] ?? [:]
      return (state["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }
    client.send(["id": 1, "command": "jump", "seq": 1])
    #expect(titles(try await client.reply(to: 1)) == ["a"])
    client.send(["id": 2, "command": "jump", "seq": 0])
    #expect(titles(try await client.reply(to: 2)) == [])
    client.send(["id": 3, "command": "jump", "seq": 3])
    #expect(titles(try await client.reply(to: 3)) == ["a", "b", "c"])
    client.send(["id": 4, "command": "toggle", "seq": 2, "skip": true])
    let toggled = try await client.reply(to: 4)
    #expect(titles(toggled) == ["a", "c"])
    #expect(toggled["skipped"] as? [Int] == [2])
    #expect(store.state.items.map(\.title) == ["a", "b", "c"])

    client.send(["id": 5, "command": "apply"])
    let applied = try await client.reply(to: 5)
    #expect(applied["type"] as? String == "applied")
    #expect(store.state.items.map(\.title) == ["a", "c"])
    let replacement = try await client.first {
      ($0["record"] as? [String: Any])?["kind"] as? String == "replacement"
    }.message
    let changes = (replacement["record"] as? [String: Any])?["changes"] as? [[String: Any]]
    #expect(changes?.isEmpty == false)
    await client.close()
    await inspector.stop()
  }

  @Test func anExportRebuildsTheLiveStatesFromItsBaseAndChanges() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(
      store.dispatcher, configuration: .init(capacity: 5))
    for index in 0..<12 { store.dispatch(AddTodo(title: "t\(index)")) }
    store.dispatch(ToggleTodo(id: 4))
    store.dispatch(SetFilter(filter: .open))
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    client.send(["id": 7, "command": "export"])
    let reply = try await client.reply(to: 7)
    let session = try #require(reply["session"] as? [String: Any])
    #expect(session["format"] as? String == "sluice-inspector-session")
    let records = try #require(session["records"] as? [[String: Any]])
    #expect(records.count == 5)
    #expect((session["summary"] as? [String: Any])?["dropped"] as? Int == 9)
    let base = try #require((session["base"] as? [[String: Any]])?.first?["state"])
    var rebuilt = base
    for record in records {
      for change in record["changes"] as? [[String: Any]] ?? [] {
        let path = try #require(InspectorPath(parsing: change["path"] as? String ?? "?"))
        rebuilt = JSONTree.setting(rebuilt, at: path.components[...], to: change["new"])
      }
    }
    let live = try #require((session["stores"] as? [[String: Any]])?.first?["state"])
    #expect(JSONTree.same(rebuilt, live))
    let items = (live as? [String: Any])?["items"] as? [[String: Any]]
    #expect(items?.count == 12)
    await client.close()
    await inspector.stop()
  }

  @Test func redactedValuesAreNeverSent() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(
      store.dispatcher,
      configuration: .init(
        redaction: .paths(["secret"], in: TodoState.self).union(.actions([Login.self]))))
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(Login(password: "swordfish"))
    store.dispatch(AddTodo(title: "visible"))
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 2 }
    for (id, command) in [(1, "export"), (2, "jump"), (3, "detail")] {
      client.send(["id": id, "command": command, "seq": 1])
      _ = try await client.reply(to: id)
    }
    client.send(["id": 4, "command": "exportTest", "from": 1, "through": 2])
    let test = try await client.reply(to: 4)
    #expect(test["type"] as? String == "error")
    let everything = client.messages.joined(separator: "\n")
    #expect(!everything.contains("swordfish"))
    #expect(!everything.contains("hunter2"))
    #expect(everything.contains("visible"))
    #expect(everything.contains("‹redacted›"))
    await client.close()
    await inspector.stop()
  }

  @Test func theForkReplaysWhatMiddlewareReplacedAnActionWith() async throws {
    let shout = Middleware<TodoState>.intercept { action, _ in
      guard let add = action as? AddTodo, !add.title.hasSuffix("!") else { return .proceed }
      return .replace(AddTodo(title: add.title.uppercased() + "!"))
    }
    let store = Store(initialState: TodoState(), reducer: todoReducer, middleware: [shout])
    let inspector = try await Inspector.start(store.dispatcher)
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(AddTodo(title: "milk"))
    store.dispatch(ToggleTodo(id: 1))
    _ = try await client.first { (($0["record"] as? [String: Any])?["seq"] as? Int) == 2 }
    client.send(["id": 1, "command": "jump", "seq": 2])
    let states = try await client.reply(to: 1)
    let state = (states["stores"] as? [[String: Any]])?.first?["state"] as? [String: Any]
    let items = state?["items"] as? [[String: Any]]
    #expect(items?.first?["title"] as? String == "MILK!")
    #expect(items?.first?["done"] as? Bool == true)
    #expect(store.state.items.map(\.title) == ["MILK!"])
    client.send(["id": 2, "command": "exportTest", "from": 1, "through": 2])
    let test = try await client.reply(to: 2)
    #expect((test["source"] as? String)?.contains(#"AddTodo(title: "MILK!")"#) == true)
    await client.close()
    await inspector.stop()
  }

  enum Credential: Sendable, Equatable {
    case none
    case token(String)
  }

  struct Session: Sendable, Equatable {
    var credential = Credential.token("s3cr3t")
  }

  @Test func aRedactedKeyAlsoRedactsTheCaseOfThatName() async throws {
    let store = Store(initialState: Session(), reducer: Reducer<Session>())
    let inspector = try await Inspector.start(
      store.dispatcher, configuration: .init(redaction: .keys(["token"])))
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    client.send(["id": 1, "command": "export"])
    _ = try await client.reply(to: 1)
    let everything = client.messages.joined()
    #expect(!everything.contains("s3cr3t"))
    #expect(everything.contains(#"{"token":"‹redacted›"}"#))
    await client.close()
    await inspector.stop()
  }

  @Test func aSecondInspectorOnTheSameLaneIsAnError() async throws {
    let store = Store(initialState: CounterState(), reducer: counterReducer)
    let first = try await Inspector.start(store.dispatcher)
    await #expect(throws: InspectorError.self) { try await Inspector.start(store.dispatcher) }
    await first.stop()
    let second = try await Inspector.start(store.dispatcher)
    await second.stop()
    await #expect(throws: InspectorError.self) {
      try await Inspector.start(store.dispatcher, configuration: .init(host: "0.0.0.0"))
    }
  }
}

/// JSON trees as `JSONSerialization` makes them, for rebuilding states from changes.
enum JSONTree {
  static func setting(
    _ tree: Any, at path: ArraySlice<InspectorPath.Component>, to value: Any?
  ) -> Any {
    guard let first = path.first else { return value ?? NSNull() }
    let rest = path.dropFirst()
    switch first {
    case .index(let index):
      var array = tree as? [Any] ?? []
      if index < array.count {
        if rest.isEmpty, value == nil {
          array.remove(at: index)
        } else {
          array[index] = setting(array[index], at: rest, to: value)
        }
      } else if let value {
        array.append(rest.isEmpty ? value : setting([String: Any](), at: rest, to: value))
      }
      return array
    case .key(let key):
      var object = tree as? [String: Any] ?? [:]
      if rest.isEmpty, value == nil {
        object.removeValue(forKey: key)
      } else {
        object[key] = setting(object[key] ?? [String: Any](), at: rest, to: value)
      }
      return object
    }
  }

  static func same(_ left: Any, _ right: Any) -> Bool {
    let options: JSONSerialization.WritingOptions = [.sortedKeys, .fragmentsAllowed]
    guard let a = try? JSONSerialization.data(withJSONObject: left, options: options),
      let b = try? JSONSerialization.data(withJSONObject: right, options: options)
    else { return false }
    return a == b
  }
}
