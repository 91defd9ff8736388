import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// Hostile input: every message gets one reply (an error, or the reply of a harmless valid
/// command), the server stays up, and no store changes.
@Suite struct InspectorFuzzTests {
  /// Messages a hostile or broken client might send: random text, truncated and corrupted
  /// commands, wrong argument types, oversized and deeply nested JSON.
  struct Messages: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
      // SplitMix64: deterministic, so a failure can be replayed from its seed.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }

    static let valid = [
      #"{"id":1,"command":"jump","seq":0}"#, #"{"id":2,"command":"toggle","seq":1,"skip":true}"#,
      #"{"id":3,"command":"detail","seq":1}"#,
      #"{"id":4,"command":"why","store":"s1","path":"items[0].title"}"#,
      #"{"id":5,"command":"exportTest","from":1,"through":2}"#, #"{"id":6,"command":"export"}"#,
      #"{"id":7,"command":"ping"}"#, #"{"id":8,"command":"apply","seq":1}"#,
    ]

    static let wrong = [
      #"{"command":"jump","seq":"1"}"#, #"{"command":"jump","seq":-1}"#,
      #"{"command":"jump","seq":1e300}"#, #"{"command":"jump","seq":1.5}"#,
      #"{"command":"jump","seq":true}"#, #"{"command":"toggle","seq":1,"skip":1}"#,
      #"{"command":"why","store":"s9","path":"x"}"#,
      #"{"command":"why","store":"s1","path":"[[["}"#,
      #"{"command":"why","store":1,"path":2}"#, #"{"command":"exportTest","from":3,"through":1}"#,
      #"{"command":"apply","seq":999999}"#, #"{"command":"apply","seq":"x"}"#, #"{"command":null}"#,
      #"{"command":"APPLY"}"#, #"{"id":{"a":1},"command":"ping"}"#,
      #"{"id":[1],"command":"apply"}"#,
      #"[]"#, #"null"#, #"42"#, #""apply""#, #"{}"#, "", " ", "\u{0}", "{\"command\":\"ping\"",
    ]

    mutating func message() -> String {
      switch Int.random(in: 0..<8, using: &self) {
      case 0:
        // Random printable and control characters.
        let count = Int.random(in: 0..<200, using: &self)
        return String(
          String.UnicodeScalarView(
            (0..<count).compactMap { _ in Unicode.Scalar(UInt32.random(in: 0..<0x800, using: &self))
            }))
      case 1:
        // A valid command cut short (never a whole `apply`).
        var text = Self.valid.randomElement(using: &self) ?? "{}"
        text = String(text.prefix(Int.random(in: 0..<max(1, text.count - 1), using: &self)))
        return text
      case 2:
        // A valid command with one character replaced.
        var characters = Array(Self.valid.randomElement(using: &self) ?? "{}")
        let index = Int.random(in: 0..<characters.count, using: &self)
        characters[index] =
          ["\"", "{", "}", "[", "]", ":", ",", "x", "9", "\\"].randomElement(using: &self) ?? "x"
        let text = String(characters)
        return text.contains("apply") ? text.replacingOccurrences(of: "apply", with: "applz") : text
      case 3: return Self.wrong.randomElement(using: &self) ?? "{}"
      case 4:
        // Oversized: past the 64 KiB a command may have (one in twelve of these, about a
        // hundred in all: each crosses the socket whole, which the debug build makes slow).
        guard Int.random(in: 0..<12, using: &self) == 0 else {
          return Self.wrong.randomElement(using: &self) ?? "{}"
        }
        let padding = String(
          repeating: "a", count: 64 * 1024 + Int.random(in: 1..<4096, using: &self))
        return #"{"command":"ping","pad":""# + padding + #""}"#
      case 5:
        // Deeply nested.
        let depth = Int.random(in: 33..<5000, using: &self)
        return String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      case 6:
        // Harmless valid commands (never `apply`, which may change the live store).
        return Self.valid.filter { !$0.contains("apply") }.randomElement(using: &self) ?? "{}"
      default:
        // Huge numbers and long strings in arguments.
        let long = String(repeating: "é", count: Int.random(in: 0..<6_000, using: &self))
        return #"{"id":""# + long + #"","command":"why","store":"s1","path":""# + long + #""}"#
      }
    }
  }

  @Test func tenThousandHostileMessagesEachGetAReplyAndChangeNothing() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    for title in ["a", "b"] { store.dispatch(AddTodo(title: title)) }
    let inspector = try await Inspector.start(store.dispatcher)
    store.dispatch(AddTodo(title: "c"))
    store.dispatch(ToggleTodo(id: 1))
    let before = store.state
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    _ = try await client.first { $0["type"] as? String == "snapshot" }
    var generator = Messages(state: 20_261_124)
    let total = 10_000
    let batch = 100
    var start = client.messages.count
    for round in 0..<(total / batch) {
      for _ in 0..<batch { client.send(generator.message()) }
      let marker = 1_000_000 + round
      client.send(["id": marker, "command": "ping"])
      let pong = try await client.first(from: start) {
        $0["type"] as? String == "pong" && ($0["id"] as? NSNumber)?.intValue == marker
      }
      let replies = client.messages(in: start..<pong.index).filter {
        InspectorConnection.parse($0)?["type"] as? String != "record"
      }
      #expect(
        replies.count == batch, "round \(round): \(replies.count) replies to \(batch) messages")
      for reply in replies {
        let type = InspectorConnection.parse(reply)?["type"] as? String
        #expect(
          ["error", "states", "detail", "why", "test", "export", "pong"].contains(type ?? "none"),
          "round \(round): \(reply.prefix(200))")
      }
      start = pong.index + 1
    }
    #expect(store.state == before)
    #expect(!client.isClosed)
    let errors = client.messages.filter {
      InspectorConnection.parse($0)?["type"] as? String == "error"
    }
    #expect(errors.count > total / 2)

    // Still alive, and still recording.
    let second = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    store.dispatch(AddTodo(title: "after"))
    _ = try await second.first {
      (($0["record"] as? [String: Any])?["action"] as? [String: Any])?["type"] as? String
        == "AddTodo"
    }
    await second.close()
    await client.close()
    await inspector.stop()
  }

  @Test func aMessagePastTheFrameLimitClosesOnlyThatConnection() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let hostile = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    let other = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    hostile.send(String(repeating: "x", count: 2 << 20))
    try await hostile.closedByServer()
    #expect(hostile.isClosed)
    other.send(["id": 1, "command": "ping"])
    #expect(try await other.reply(to: 1)["type"] as? String == "pong")
    await hostile.close()
    await other.close()
    await inspector.stop()
  }
}

/// Commands are decoded by `JSONDecoder`: a Boolean is never a number, nor a number a Boolean,
/// and every wrong argument is an error value naming it.
@Suite struct InspectorCommandTests {
  @Test(arguments: [
    (#"{"id":true,"command":"ping"}"#, InspectorError.Code.malformed),
    (#"{"id":1,"command":7}"#, .malformed),
    (#"["command","ping"]"#, .malformed),
    (#"{"command":"nope"}"#, .unknownCommand),
    (#"{"command":"toggle","seq":3,"skip":1}"#, .badArgument),
    (#"{"command":"toggle","seq":3,"skip":"true"}"#, .badArgument),
    (#"{"command":"jump","seq":true}"#, .badArgument),
    (#"{"command":"jump","seq":2.5}"#, .badArgument),
    (#"{"command":"jump","seq":-1}"#, .badArgument),
    (#"{"command":"jump","seq":9007199254740992}"#, .badArgument),
    (#"{"command":"jump","seq":"3"}"#, .badArgument),
    (#"{"command":"why","store":"s1"}"#, .badArgument),
    (#"{"command":"exportTest","from":1}"#, .badArgument),
  ])
  func aMessageThatIsNotACommandIsAnError(text: String, code: InspectorError.Code) {
    guard case .failure(let failure) = InspectorCommand.parse(text) else {
      Issue.record("\(text) was read as a command")
      return
    }
    #expect(failure.error.code == code)
  }

  @Test func argumentsAreReadWithTheirJSONTypes() throws {
    func request(_ text: String) throws -> InspectorCommand.Request {
      try InspectorCommand.parse(text).get().request
    }
    let command = try InspectorCommand.parse(
      #"{"id":"a","command":"toggle","seq":3,"skip":true,"other":1}"#
    ).get()
    #expect(command.id == .string("a"))
    #expect(command.request == .toggle(seq: 3, skip: true))
    #expect(try request(#"{"command":"jump","seq":4.0}"#) == .jump(seq: 4))
    #expect(try request(#"{"command":"apply"}"#) == .apply(seq: nil))
    #expect(try request(#"{"command":"apply","seq":null}"#) == .apply(seq: nil))
    #expect(
      try request(#"{"command":"why","store":"s1","path":"a.b"}"#) == .why(store: "s1", path: "a.b")
    )
  }

  @Test func aBadArgumentIsAnsweredWithTheCommandsId() {
    guard case .failure(let failure) = InspectorCommand.parse(#"{"id":5,"command":"jump"}"#) else {
      Issue.record("a jump without a record number was read as a command")
      return
    }
    #expect(failure.id == .int(5))
    #expect(failure.error == InspectorError(.badArgument, #""seq" must be a record number"#))
  }
}
