import Foundation

/// Swift source that rebuilds a value: `TodoState(items: [Todo(id: 1, title: "Milk")])`.
///
/// It follows the value by reflection and writes a memberwise initializer for a struct, a case
/// for an enum, a literal for a collection or a scalar. It works for the plain value types that
/// states and actions are made of; a value it cannot write (a closure, a class instance without
/// a memberwise initializer, a type local to a function) is an error naming it.
enum SwiftLiteral {
  struct Unwritable: Error {
    let what: String
  }

  static func source(of value: Any) throws(Unwritable) -> String {
    try write(value, depth: 0)
  }

  private static func write(_ value: Any, depth: Int) throws(Unwritable) -> String {
    guard depth < 64 else { throw Unwritable(what: "a value nested more than 64 levels deep") }
    switch value {
    case let text as String: return quoted(text)
    case let text as Substring: return quoted(String(text))
    case let character as Character: return quoted(String(character))
    case let flag as Bool: return flag ? "true" : "false"
    case let number as Int: return "\(number)"
    case let number as Int8: return "\(number)"
    case let number as Int16: return "\(number)"
    case let number as Int32: return "\(number)"
    case let number as Int64: return "\(number)"
    case let number as UInt: return "\(number)"
    case let number as UInt8: return "\(number)"
    case let number as UInt16: return "\(number)"
    case let number as UInt32: return "\(number)"
    case let number as UInt64: return "\(number)"
    case let number as Double: return double(number)
    case let number as Float: return double(Double(number))
    case let date as Date:
      return "Date(timeIntervalSinceReferenceDate: \(double(date.timeIntervalSinceReferenceDate)))"
    case let uuid as UUID: return "UUID(uuidString: \(quoted(uuid.uuidString)))!"
    case let url as URL: return "URL(string: \(quoted(url.absoluteString)))!"
    default: break
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return "nil" }
      return try write(wrapped, depth: depth + 1)
    case .collection, .set:
      var items: [String] = []
      for child in mirror.children { items.append(try write(child.value, depth: depth + 1)) }
      return "[" + items.joined(separator: ", ") + "]"
    case .dictionary:
      var entries: [String] = []
      for child in mirror.children {
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { continue }
        entries.append(
          try write(pair[0], depth: depth + 1) + ": " + write(pair[1], depth: depth + 1))
      }
      return entries.isEmpty ? "[:]" : "[" + entries.sorted().joined(separator: ", ") + "]"
    case .enum:
      guard let payload = mirror.children.first else {
        return "." + String(describing: value)
      }
      let name = payload.label ?? String(describing: value)
      let inner = Mirror(reflecting: payload.value)
      if inner.displayStyle == .tuple {
        return ".\(name)(" + (try arguments(inner, depth: depth)) + ")"
      }
      return ".\(name)(" + (try write(payload.value, depth: depth + 1)) + ")"
    case .struct, .class:
      return try typeName(of: value) + "(" + arguments(mirror, depth: depth) + ")"
    case .tuple:
      return "(" + (try arguments(mirror, depth: depth)) + ")"
    default:
      throw Unwritable(what: "a value of type \(String(reflecting: type(of: value)))")
    }
  }

  private static func arguments(_ mirror: Mirror, depth: Int) throws(Unwritable) -> String {
    var parts: [String] = []
    for child in mirror.children {
      let text = try write(child.value, depth: depth + 1)
      if let label = child.label, !label.hasPrefix(".") {
        parts.append("\(label): \(text)")
      } else {
        parts.append(text)
      }
    }
    return parts.joined(separator: ", ")
  }

  /// The type's name as source can spell it: module-qualified, or an error for a type local to
  /// a function or private to a file.
  static func typeName(of value: Any) throws(Unwritable) -> String {
    let name = String(reflecting: type(of: value))
    guard !name.contains("(unknown context"), !name.contains("(extension in") else {
      throw Unwritable(what: "\(String(describing: type(of: value))), which a test cannot name")
    }
    return name
  }

  static func quoted(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          output += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          output.unicodeScalars.append(scalar)
        }
      }
    }
    return output + "\""
  }

  private static func double(_ number: Double) -> String {
    if number.isNaN { return "Double.nan" }
    if number.isInfinite { return number < 0 ? "-Double.infinity" : "Double.infinity" }
    return "\(number)"
  }
}
