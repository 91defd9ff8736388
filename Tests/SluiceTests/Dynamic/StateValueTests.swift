import Foundation
import Testing

@testable import Sluice

/// `StateValue`, the dynamic part of a state (Flask's `FlaskDictRef`): subscripts never trap,
/// writes create what they need, and it round-trips through `Codable`.
@Suite struct StateValueTests {
  static let sample: StateValue = [
    "foo": "bar",
    "count": 3,
    "ratio": 0.5,
    "on": true,
    "none": nil,
    "nest": ["data": "some", "list": [1, "two", [3]]],
  ]

  // MARK: - Reading never traps

  @Test func readingAMissingKeyGivesNull() {
    #expect(Self.sample["missing"] == .null)
    #expect(Self.sample["nest"]["missing"]["deeper"] == .null)
    #expect(Self.sample[path: "nest.missing.deeper"] == .null)
  }

  @Test func readingAnIndexOutOfRangeGivesNull() {
    let list = Self.sample["nest"]["list"]
    #expect(list[0] == 1)
    #expect(list[2][0] == 3)
    #expect(list[3] == .null)
    #expect(list[-1] == .null)
    #expect(list[Int.max] == .null)
    #expect(list[Int.min] == .null)
    #expect(Self.sample[path: "nest.list.1"] == "two")
    #expect(Self.sample[path: "nest.list.7"] == .null)
    #expect(Self.sample[path: "nest.list.-1"] == .null)
  }

  @Test func readingAValueOfAnotherKindGivesNull() {
    #expect(Self.sample["foo"]["x"] == .null)  // a key of a string
    #expect(Self.sample["foo"][0] == .null)  // an index of a string
    #expect(Self.sample[0] == .null)  // an index of an object
    #expect(Self.sample["nest"]["list"]["0"] == .null)  // a key of an array
    #expect(StateValue.null["a"][1]["b"] == .null)
    #expect(Self.sample[path: "count.more"] == .null)
    #expect(Self.sample[path: ""] == .null)
    #expect(Self.sample[path: "nest..data"] == .null)
  }

  @Test func typedAccessorsReadOnlyTheirOwnKind() {
    #expect(Self.sample["foo"].stringValue == "bar")
    #expect(Self.sample["foo"].intValue == nil)
    #expect(Self.sample["count"].intValue == 3)
    #expect(Self.sample["count"].doubleValue == 3)
    #expect(Self.sample["ratio"].doubleValue == 0.5)
    #expect(Self.sample["ratio"].intValue == nil)
    #expect(StateValue.double(4).intValue == 4)
    #expect(StateValue.double(1e300).intValue == nil)
    #expect(Self.sample["on"].boolValue == true)
    #expect(Self.sample["on"].stringValue == nil)
    #expect(Self.sample["none"].isNull)
    #expect(Self.sample["nest"]["list"].arrayValue?.count == 3)
    #expect(Self.sample["nest"].objectValue?.keys.sorted() == ["data", "list"])
    #expect(Self.sample["foo"].arrayValue == nil)
    #expect(Self.sample["foo"].objectValue == nil)
  }

  // MARK: - Writing

  @Test func writingThroughMissingKeysCreatesTheIntermediateObjects() {
    var value: StateValue = nil
    value["a"]["b"]["c"] = 1
    #expect(value == ["a": ["b": ["c": 1]]])
    value["a"]["x"] = "y"
    #expect(value[path: "a.b.c"] == 1)
    #expect(value[path: "a.x"] == "y")
  }

  @Test func writingPastTheEndOfAnArrayPadsWithNull() {
    var value: StateValue = [1]
    value[3] = 4
    #expect(value == [1, nil, nil, 4])
    var fresh: StateValue = nil
    fresh["list"][1]["name"] = "b"
    #expect(fresh == ["list": [nil, ["name": "b"]]])
  }

  @Test func writingANegativeIndexChangesNothing() {
    var value: StateValue = [1, 2]
    value[-1] = 9
    #expect(value == [1, 2])
  }

  @Test func writingAKeyIntoAValueOfAnotherKindReplacesItWithAnObject() {
    var value: StateValue = "scalar"
    value["key"] = true
    #expect(value == ["key": true])
    var list: StateValue = [1, 2]
    list["key"] = 1
    #expect(list == ["key": 1])
    var object: StateValue = ["a": 1]
    object[0] = "first"
    #expect(object == ["first"])
  }

  @Test func settingNullRemovesTheKey() {
    var value: StateValue = ["keep": 1, "drop": 2, "nest": ["inner": 3, "other": 4]]
    value["drop"] = nil
    value["nest"]["inner"] = .null
    #expect(value == ["keep": 1, "nest": ["other": 4]])
    #expect(value.objectValue?["drop"] == nil)
    #expect(value["nest"].objectValue?.keys.sorted() == ["other"])
  }

  @Test func aValueStaysAValueWhenCopied() {
    let original: StateValue = ["list": [1, 2]]
    var copy = original
    copy["list"][0] = 100
    #expect(original[path: "list.0"] == 1)
    #expect(copy[path: "list.0"] == 100)
  }

  // MARK: - Literals and description

  @Test func everyLiteralMakesItsCase() {
    let null: StateValue = nil
    let bool: StateValue = false
    let int: StateValue = 42
    let double: StateValue = 2.5
    let string: StateValue = "text"
    let array: StateValue = [1, "a"]
    let object: StateValue = ["k": 1]
    #expect(null == .null)
    #expect(bool == .bool(false))
    #expect(int == .int(42))
    #expect(double == .double(2.5))
    #expect(string == .string("text"))
    #expect(array == .array([.int(1), .string("a")]))
    #expect(object == .object(["k": .int(1)]))
    let duplicated: StateValue = ["k": 1, "k": 2]
    #expect(duplicated == ["k": 2])
  }

  @Test func theDescriptionReadsLikeJSONWithSortedKeys() {
    let value: StateValue = ["b": [1, 2.5, nil], "a": "x", "c": true]
    #expect(value.description == #"{"a": "x", "b": [1, 2.5, null], "c": true}"#)
  }

  // MARK: - Codable

  @Test func aValueRoundTripsThroughJSON() throws {
    let data = try JSONEncoder().encode(Self.sample)
    let decoded = try JSONDecoder().decode(StateValue.self, from: data)
    #expect(decoded == Self.sample)
  }

  @Test func everyKindRoundTripsThroughJSONAsItself() throws {
    let values: [StateValue] = [
      nil, true, false, 0, -7, .int(Int.max), 2.5, -0.125, "", "text", [], [nil], [:], ["k": [:]],
    ]
    for value in values {
      let data = try JSONEncoder().encode(value)
      #expect(try JSONDecoder().decode(StateValue.self, from: data) == value, "\(value)")
    }
  }

  @Test func aWholeNumberDoubleRoundTripsToAnEqualValue() throws {
    // JSONEncoder writes 1.0 as `1`; a restored state must still equal the saved one, or every
    // observer fires after a restore.
    let value: StateValue = ["ratio": 1.0]
    let data = try JSONEncoder().encode(value)
    let decoded = try JSONDecoder().decode(StateValue.self, from: data)
    #expect(decoded["ratio"].doubleValue == 1.0)
    #expect(decoded == value, "a whole-number double came back as an unequal value")
  }

  @Test func arbitraryJSONDecodesIntoAValue() throws {
    let json = Data(#"{"a": [1, 2.5, "x", null, true, {"b": {}}], "c": -3}"#.utf8)
    let value = try JSONDecoder().decode(StateValue.self, from: json)
    #expect(value == ["a": [1, 2.5, "x", nil, true, ["b": [:]]], "c": -3])
  }

  @Test func aStateHoldingAValueStaysCodableEquatableAndHashable() throws {
    struct Settings: Codable, Hashable, Sendable {
      var info: StateValue = [:]
      var maybe: StateValue?
    }
    var settings = Settings()
    settings.info["nest"]["data"] = 42
    let data = try JSONEncoder().encode(settings)
    let decoded = try JSONDecoder().decode(Settings.self, from: data)
    #expect(decoded == settings)
    #expect(Set([settings, decoded]).count == 1)
  }

  @Test func decodedValuesConvertToTypesWithoutTrapping() {
    struct Point: Decodable, Equatable {
      var x: Int
      var y: Int
    }
    let point: StateValue = ["x": 1, "y": 2]
    #expect(point.decoded(as: Point.self) == Point(x: 1, y: 2))
    #expect(StateValue.string("no").decoded(as: Point.self) == nil)
    #expect(StateValue.int(3).decoded(as: Int.self) == 3)
    #expect(StateValue.int(3).decoded(as: Double.self) == 3)
    #expect(StateValue.string("3").decoded(as: Int.self) == nil)
    #expect(StateValue.null.decoded(as: String.self) == nil)
    #expect(StateValue.array([1, 2]).decoded(as: [Int].self) == [1, 2])
  }
}
