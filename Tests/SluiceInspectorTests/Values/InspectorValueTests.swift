import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// Values by reflection, their paths and their diffs.
@Suite struct InspectorValueTests {
  enum Mood: CustomStringConvertible {
    case calm
    case busy(tasks: Int, note: String)
    var description: String { "a mood" }
  }

  final class Node: @unchecked Sendable {
    var name = "root"
    var next: Node?
  }

  struct Sample {
    var mood = Mood.calm
    var busy = Mood.busy(tasks: 2, note: "x")
    var tags: Set<String> = ["b"]
    var scores = ["b": 2, "a": 1]
    var password = "secret"
    var maybe: Int? = nil
    var when = Date(timeIntervalSince1970: 0)
  }

  @Test func reflectionShowsCaseNamesDictionariesSortedAndRedactsByKey() {
    let encoder = ValueEncoder(redaction: Redaction(keys: ["password"]))
    let value = encoder.encodeState(Sample(), storeName: "Sample")
    #expect(value[InspectorPath(parsing: "mood")!] == .string("calm"))
    #expect(
      value[InspectorPath(parsing: "busy.busy.tasks")!] == .number(2),
      "a case with a payload is {name: payload}: \(value.json)")
    #expect(value[InspectorPath(parsing: "scores")!]?.json == #"{"a":1,"b":2}"#)
    #expect(value[InspectorPath(parsing: "password")!] == InspectorValue.redacted)
    #expect(value[InspectorPath(parsing: "maybe")!] == .null)
    #expect(value[InspectorPath(parsing: "when")!] == .string("1970-01-01T00:00:00Z"))
  }

  @Test func aCycleOfClassesStopsInsteadOfRecursingForever() {
    let node = Node()
    node.next = node
    let value = ValueEncoder(redaction: .none).encodeState(node, storeName: "Node")
    #expect(value[InspectorPath(parsing: "next")!] == .string("‹cycle›"))
  }

  struct Handle {
    var store: Store<Int>
    var dispatcher: Dispatcher
  }

  /// A value that holds a store (an action carrying one, as in the ring tests) is not walked
  /// into the lane: before, each such action was encoded with every store, observer and record
  /// of its lane, up to the node limit, and dispatches slowed to seconds.
  @Test func aStoreOrDispatcherInAValueIsNamedNotWalked() {
    let store = Store(initialState: 0, reducer: Reducer<Int>())
    let value = ValueEncoder(redaction: .none).encodeState(
      Handle(store: store, dispatcher: store.dispatcher), storeName: "Handle")
    #expect(value[InspectorPath(parsing: "store")!] == .string("‹Store<Int>›"))
    #expect(value[InspectorPath(parsing: "dispatcher")!] == .string("‹Dispatcher›"))
  }

  @Test(arguments: [
    "items[2].done", #"byID["42"].title"#, #"["a \"quoted\" key"]"#, #"["line\nbreak"]"#,
    #"["é ü"].x"#, "a.b.c", #"[""]"#,
  ])
  func pathsSurviveTheirOwnDescription(text: String) throws {
    let path = try #require(InspectorPath(parsing: text))
    let again = try #require(InspectorPath(parsing: path.description))
    #expect(again == path)
  }

  @Test(arguments: ["[", "a..b", "[x]", #"["open"#, "a[1", "a b", ".", "[-1]"])
  func malformedPathsAreRefused(text: String) {
    #expect(InspectorPath(parsing: text) == nil)
  }

  @Test func aDiffNamesOnlyWhatChangedAtTheDeepestPath() {
    let old = InspectorValue.object([
      .init("items", .array([.number(1), .number(2)])),
      .init("byID", .dictionary([.init("a", .bool(true)), .init("b", .bool(false))])),
      .init("name", .string("x")),
    ])
    let new = InspectorValue.object([
      .init("items", .array([.number(1), .number(3), .number(4)])),
      .init("byID", .dictionary([.init("b", .bool(true)), .init("c", .bool(false))])),
      .init("name", .string("x")),
    ])
    let changes = InspectorChange.between(old, new).map {
      "\($0.path): \($0.old?.json ?? "∅") → \($0.new?.json ?? "∅")"
    }
    #expect(
      changes == [
        "items[1]: 2 → 3", "items[2]: ∅ → 4", "byID.a: true → ∅", "byID.b: false → true",
        "byID.c: ∅ → false",
      ])
    #expect(InspectorChange.between(old, old).isEmpty)
  }
}
