import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// States by reflection into `StateValue`, their paths and their diffs.
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
    let value = Redaction.keys(["password"]).encodeState(Sample())
    #expect(value[path: "mood"] == .string("calm"))
    #expect(
      value[path: "busy.busy.tasks"] == .int(2),
      "a case with a payload is {name: payload}: \(value.jsonText)")
    #expect(value[path: "scores"].jsonText == #"{"a":1,"b":2}"#)
    #expect(value[path: "password"] == StateValue.redacted)
    #expect(value.objectValue?["maybe"] == .null)
    #expect(value[path: "when"] == .string("1970-01-01T00:00:00Z"))
  }

  @Test func aCycleOfClassesStopsInsteadOfRecursingForever() {
    let node = Node()
    node.next = node
    let value = Redaction.none.encodeState(node)
    #expect(value[path: "next"] == .string("‹cycle›"))
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
    let value = Redaction.none.encodeState(Handle(store: store, dispatcher: store.dispatcher))
    #expect(value[path: "store"] == .string("‹Store<Int>›"))
    #expect(value[path: "dispatcher"] == .string("‹Dispatcher›"))
  }

  struct Note { var text = "n" }
  struct Board {
    var notes = [Note(), Note()]
    var owner = Note()
  }

  /// The inspector takes the logging middleware's path grammar: from the state down, `*` for
  /// any element; a path given for one type redacts nothing in another.
  @Test func pathsStartAtTheStateAndAWildcardTakesEveryElement() {
    let value = Redaction.paths(["notes.*.text"]).encodeState(Board())
    #expect(value[path: "notes.0.text"] == StateValue.redacted)
    #expect(value[path: "notes.1.text"] == StateValue.redacted)
    #expect(value[path: "owner.text"] == .string("n"))
    let scoped = Redaction.paths(["text"], in: Note.self)
    #expect(scoped.encodeState(Note())[path: "text"] == StateValue.redacted)
    #expect(scoped.encodeState(Board())[path: "owner.text"] == .string("n"))
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
    let old: StateValue = [
      "items": [1, 2], "byID": ["a": true, "b": false], "name": "x",
    ]
    let new: StateValue = [
      "items": [1, 3, 4], "byID": ["b": true, "c": false], "name": "x",
    ]
    let changes = StateValueChange.between(old, new).map {
      "\(InspectorPath($0.path)): \($0.old?.jsonText ?? "∅") → \($0.new?.jsonText ?? "∅")"
    }
    #expect(
      changes == [
        "byID.a: true → ∅", "byID.b: false → true", "byID.c: ∅ → false", "items[1]: 2 → 3",
        "items[2]: ∅ → 4",
      ])
    #expect(StateValueChange.between(old, old).isEmpty)
  }
}
