import Foundation

/// A Swift value as the inspector shows it: a JSON tree built by reflection (`Mirror`), so that
/// any state or action can be shown, compared and diffed, whether it is `Codable` or not.
public enum InspectorValue: Sendable, Hashable {
  /// `nil`.
  case null
  /// A Boolean.
  case bool(Bool)
  /// A number (every integer and floating-point type; integers beyond 2⁵³ lose precision).
  case number(Double)
  /// Text: a `String`, `Character`, `Date`, `UUID`, `URL`, an enum case without payload.
  case string(String)
  /// An array or a set.
  case array([InspectorValue])
  /// A struct, class, tuple or enum case with a payload: its fields in declaration order.
  case object([Field])
  /// A dictionary: its entries, sorted by key.
  case dictionary([Field])

  /// One named part of an object or dictionary.
  public struct Field: Sendable, Hashable {
    /// The property's name, or the dictionary key as text.
    public var key: String
    /// Its value.
    public var value: InspectorValue

    /// Creates a field.
    public init(_ key: String, _ value: InspectorValue) {
      self.key = key
      self.value = value
    }
  }

  /// The text the inspector shows in place of a redacted value.
  public static let redacted = InspectorValue.string("‹redacted›")

  /// The value at `path` (see ``InspectorPath``), or `nil` when there is none.
  public subscript(path: InspectorPath) -> InspectorValue? {
    var current = self
    for component in path.components {
      switch (current, component) {
      case (.array(let items), .index(let index)):
        guard items.indices.contains(index) else { return nil }
        current = items[index]
      case (.array(let items), .key(let key)):
        // `["2"]` for `[2]`: the page cannot always tell an array from an object.
        guard let index = Int(key), items.indices.contains(index) else { return nil }
        current = items[index]
      case (.object(let fields), _), (.dictionary(let fields), _):
        let key: String
        switch component {
        case .key(let name): key = name
        case .index(let index): key = "\(index)"
        }
        guard let field = fields.first(where: { $0.key == key }) else { return nil }
        current = field.value
      default: return nil
      }
    }
    return current
  }
}

// MARK: - JSON

extension InspectorValue {
  /// The value as compact JSON text.
  public var json: String {
    var output = ""
    write(to: &output)
    return output
  }

  /// Appends the value as compact JSON to `output`.
  func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let value): InspectorValue.writeNumber(value, to: &output)
    case .string(let value): InspectorValue.writeString(value, to: &output)
    case .array(let items):
      output += "["
      for (index, item) in items.enumerated() {
        if index > 0 { output += "," }
        item.write(to: &output)
      }
      output += "]"
    case .object(let fields), .dictionary(let fields):
      output += "{"
      for (index, field) in fields.enumerated() {
        if index > 0 { output += "," }
        InspectorValue.writeString(field.key, to: &output)
        output += ":"
        field.value.write(to: &output)
      }
      output += "}"
    }
  }

  static func writeNumber(_ value: Double, to output: inout String) {
    guard value.isFinite else {
      // JSON has no infinities or NaN: shown as text.
      writeString("\(value)", to: &output)
      return
    }
    if value == value.rounded(), abs(value) < 1e15 {
      output += String(Int64(value))
    } else {
      output += "\(value)"
    }
  }

  static func writeString(_ value: String, to output: inout String) {
    output += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{2028}": output += "\\u2028"
      case "\u{2029}": output += "\\u2029"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          output.unicodeScalars.append(scalar)
        }
      }
    }
    output += "\""
  }
}
