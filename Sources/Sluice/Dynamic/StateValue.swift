import Foundation

/// A JSON-like value for the dynamic parts of a state: nested dictionaries and arrays whose keys
/// are only known at run time (Flask's `FlaskDictRef`).
///
/// `StateValue` is `Codable`, `Hashable` and `Sendable`, so a state holding one stays all three.
/// Its subscripts never trap: a missing key, an index out of range, or a subscript on a value of
/// another kind reads as ``null``. That makes nested key paths observable like any other:
///
/// ```swift
/// struct Settings: Equatable, Codable { var info: StateValue = [:] }
/// store.observe(\.info["nest"]["data"]) { change in print(change.new) }
/// store.dispatch(SetInfo(path: ["nest", "data"], value: 42))
/// ```
///
/// Writing through a subscript creates the intermediate objects or arrays it needs.
///
/// Numbers compare by value: `.int(1) == .double(1.0)`, so a value that went through JSON (where
/// `1.0` is written `1`) still equals the original.
public enum StateValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([StateValue])
  case object([String: StateValue])

  /// The most ``null`` elements a write through the index subscript pads an array with:
  /// 1,048,576 (2²⁰). A write further past the end is ignored, so that an index that came from
  /// user data can never trap nor allocate an absurd array.
  public static let maximumPadding = 1 << 20

  /// The value under `key` of an object; ``null`` when absent or when this is not an object.
  ///
  /// Setting a key on a value that is not an object replaces it with an object; setting
  /// ``null`` removes the key.
  public subscript(key: String) -> StateValue {
    get {
      guard case .object(let object) = self else { return .null }
      return object[key] ?? .null
    }
    set {
      var object: [String: StateValue]
      if case .object(let existing) = self { object = existing } else { object = [:] }
      self = .null  // Drop the reference so the dictionary is uniquely held while edited.
      if newValue == .null {
        object.removeValue(forKey: key)
      } else {
        object[key] = newValue
      }
      self = .object(object)
    }
  }

  /// The element at `index` of an array; ``null`` when out of range or when this is not an array.
  ///
  /// Setting an index past the end pads the array with ``null``; setting on a value that is not
  /// an array replaces it with an array. Negative indices are ignored, and so is an index that
  /// would need more than ``maximumPadding`` elements of padding (the value is left as it was):
  /// an index that came from user data never traps nor allocates an absurd array.
  public subscript(index: Int) -> StateValue {
    get {
      guard case .array(let array) = self, array.indices.contains(index) else { return .null }
      return array[index]
    }
    set {
      guard index >= 0 else { return }
      let count: Int
      if case .array(let existing) = self { count = existing.count } else { count = 0 }
      // `index - count` cannot overflow: both are non-negative.
      guard index < count || index - count <= StateValue.maximumPadding else { return }
      var array: [StateValue]
      if case .array(let existing) = self { array = existing } else { array = [] }
      self = .null
      if index >= array.count {
        array.append(contentsOf: repeatElement(.null, count: index - array.count + 1))
      }
      array[index] = newValue
      self = .array(array)
    }
  }

  /// The value at a dotted path such as `"info.nest.foo"` or `"items.2.name"`: object keys by
  /// name, array elements by index. ``null`` when any step is missing.
  public subscript(path path: String) -> StateValue {
    var value = self
    for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
      value = value.child(String(segment)) ?? .null
    }
    return value
  }

  /// The child named `segment`: an object key, or an array index written in decimal.
  func child(_ segment: String) -> StateValue? {
    switch self {
    case .object(let object): return object[segment]
    case .array(let array):
      guard let index = Int(segment), array.indices.contains(index) else { return nil }
      return array[index]
    default: return nil
    }
  }

  /// Whether this is ``null``.
  public var isNull: Bool { self == .null }
  /// The boolean, if this is one.
  public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
  /// The integer, if this is one (or a double with an integral value).
  public var intValue: Int? {
    switch self {
    case .int(let value): value
    case .double(let value): Int(exactly: value)
    default: nil
    }
  }
  /// The number as a double, if this is a number.
  public var doubleValue: Double? {
    switch self {
    case .int(let value): Double(value)
    case .double(let value): value
    default: nil
    }
  }
  /// The string, if this is one.
  public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
  /// The elements, if this is an array.
  public var arrayValue: [StateValue]? { if case .array(let value) = self { value } else { nil } }
  /// The members, if this is an object.
  public var objectValue: [String: StateValue]? {
    if case .object(let value) = self { value } else { nil }
  }
}

extension StateValue {
  public static func == (lhs: StateValue, rhs: StateValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)): a == b
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let value): hasher.combine(value)
    // Numbers hash as doubles, so equal integers and doubles hash alike.
    case .int(let value): hasher.combine(Double(value))
    case .double(let value): hasher.combine(value)
    case .string(let value): hasher.combine(value)
    case .array(let value): hasher.combine(value)
    case .object(let value): hasher.combine(value)
    }
  }
}

extension StateValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  public init(nilLiteral: ()) { self = .null }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(arrayLiteral elements: StateValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, StateValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}

extension StateValue: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([StateValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: StateValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}

extension Encodable {
  /// The value as compact JSON text, keys sorted; a number JSON cannot hold (an infinity, NaN)
  /// is written as text.
  package var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    // A value whose encoding throws is written `null`; a `StateValue`'s encoding cannot throw
    // (its non-conforming numbers are written as text).
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
  }
}

extension StateValue: CustomStringConvertible {
  public var description: String {
    switch self {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .int(let value): "\(value)"
    case .double(let value): "\(value)"
    case .string(let value): "\"\(value)\""
    case .array(let value): "[" + value.map(\.description).joined(separator: ", ") + "]"
    case .object(let value):
      "{"
        + value.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
        .joined(separator: ", ") + "}"
    }
  }
}
