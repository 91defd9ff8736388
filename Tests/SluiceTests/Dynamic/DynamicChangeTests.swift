import Foundation
import Testing

@testable import Sluice

/// `DynamicChange`: what a dotted-path reaction receives, with typed accessors that return `nil`
/// instead of trapping when the value is not of the asked type.
@Suite struct DynamicChangeTests {
  struct Profile: Codable, Equatable, Sendable {
    var name = "ann"
    var age = 30
    var score = 0.5
    var tags: [String] = []
    var address = Address()
    var nickname: String?
  }

  struct Address: Codable, Equatable, Sendable {
    var city = "Oslo"
    var zip = 1
  }

  struct Edit: Action {
    let body: @Sendable (inout Profile) -> Void
  }

  static let reducer = Reducer<Profile>().on(Edit.self) { state, edit in edit.body(&state) }

  /// Runs `edit` and returns the changes the reaction on `path` received.
  static func changes(at path: String, after edits: [Edit]) -> [DynamicChange] {
    let store = Store(initialState: Profile(), reducer: reducer)
    let changes = Recorder<DynamicChange>()
    let subscription = store.react { reaction in reaction.on(path) { changes.append($0) } }
    for edit in edits { store.dispatch(edit) }
    subscription.cancel()
    return changes.values
  }

  @Test func typedAccessorsDecodeTheOldAndNewValues() {
    let changes = Self.changes(at: "age", after: [Edit { $0.age = 31 }])
    #expect(changes.count == 1)
    let change = changes.first
    #expect(change?.path == "age")
    #expect(change?.old == 30)
    #expect(change?.new == 31)
    #expect(change?.old(as: Int.self) == 30)
    #expect(change?.new(as: Int.self) == 31)
    #expect(change?.new(as: Double.self) == 31)
    #expect(change?.new(as: String.self) == nil)
    #expect(change?.new(as: Bool.self) == nil)
  }

  @Test func aStringChangeDecodesAsAString() {
    let change = Self.changes(at: "name", after: [Edit { $0.name = "bob" }]).first
    #expect(change?.new(as: String.self) == "bob")
    #expect(change?.old(as: String.self) == "ann")
    #expect(change?.new(as: Int.self) == nil)
  }

  @Test func aDoubleChangeDecodesAsADouble() {
    let change = Self.changes(at: "score", after: [Edit { $0.score = 0.75 }]).first
    #expect(change?.new(as: Double.self) == 0.75)
    #expect(change?.new(as: Int.self) == nil)
  }

  @Test func aNestedStructChangeDecodesAsTheStruct() {
    let change = Self.changes(at: "address", after: [Edit { $0.address.city = "Bergen" }]).first
    #expect(change?.new(as: Address.self) == Address(city: "Bergen", zip: 1))
    #expect(change?.old(as: Address.self) == Address())
    #expect(change?.new(as: [String].self) == nil)
  }

  @Test func anArrayChangeDecodesAsTheArray() {
    let changes = Self.changes(
      at: "tags", after: [Edit { $0.tags = ["a"] }, Edit { $0.tags.append("b") }])
    #expect(changes.map { $0.new(as: [String].self) } == [["a"], ["a", "b"]])
    #expect(changes.first?.old(as: [String].self) == [])
  }

  @Test func aNullValueDecodesAsNilOrAsAnOptional() {
    let changes = Self.changes(
      at: "nickname", after: [Edit { $0.nickname = "al" }, Edit { $0.nickname = nil }])
    #expect(changes.count == 2)
    #expect(changes.first?.old.isNull == true)
    #expect(changes.first?.old(as: String.self) == nil)
    #expect(changes.first?.new(as: String.self) == "al")
    #expect(changes.last?.new(as: String.self) == nil)
    #expect(changes.last?.new(as: String?.self) == .some(nil))
  }

  @Test func aChangeCanBeBuiltAndReadDirectly() {
    let store = Store(initialState: Profile(), reducer: Self.reducer)
    let change = DynamicChange(path: "x.y", store: store, old: ["a": [1, 2]], new: "2024")
    #expect(change.old(as: [String: [Int]].self) == ["a": [1, 2]])
    #expect(change.new(as: String.self) == "2024")
    #expect(change.new(as: Int.self) == nil)
    #expect(change.store === store)
  }
}
