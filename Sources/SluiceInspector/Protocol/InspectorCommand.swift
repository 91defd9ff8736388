import Foundation

/// A command a client sent (see <doc:InspectorProtocol>), read strictly: a message that is not
/// exactly what the protocol says is an ``InspectorError``, never a crash or a guess.
struct InspectorCommand {
  /// The most text one command may have.
  static let maxLength = 64 * 1024
  /// The deepest nesting of arrays and objects read (a command needs 2).
  static let maxNesting = 32

  enum Name: String, Sendable {
    case jump, toggle, apply, detail, why, observers, export, exportTest, pause, resume, ping
  }

  /// The id the reply repeats (a number or a string), when the client gave one.
  let id: InspectorValue?
  let name: Name
  let fields: [String: Any]

  /// A message that is not a command, with the id it gave, if any.
  struct Failure: Error {
    let error: InspectorError
    let id: InspectorValue?
  }

  /// Parses `text`; the error carries the id when one could be read.
  static func parse(_ text: String) -> Result<InspectorCommand, Failure> {
    guard text.utf8.count <= maxLength else {
      return .failure(
        Failure(
          error: InspectorError(.tooLarge, "a command may have at most \(maxLength) bytes"), id: nil
        ))
    }
    guard nestingDepth(of: text) <= maxNesting else {
      return .failure(
        Failure(
          error: InspectorError(.malformed, "nested deeper than \(maxNesting) levels"), id: nil))
    }
    guard let data = text.data(using: .utf8),
      let parsed = try? JSONSerialization.jsonObject(with: data, options: []),
      let object = parsed as? [String: Any]
    else {
      return .failure(Failure(error: InspectorError(.malformed, "not a JSON object"), id: nil))
    }
    var id: InspectorValue?
    switch object["id"] {
    case nil, is NSNull: id = nil
    case let text as String: id = .string(String(text.prefix(128)))
    case let number as NSNumber where !isBoolean(number):
      let value = number.doubleValue
      guard value.isFinite else {
        return .failure(Failure(error: InspectorError(.malformed, "bad id"), id: nil))
      }
      id = .number(value)
    default:
      return .failure(
        Failure(error: InspectorError(.malformed, "\"id\" must be a number or a string"), id: nil))
    }
    guard let nameText = object["command"] as? String else {
      return .failure(Failure(error: InspectorError(.malformed, "no \"command\" string"), id: id))
    }
    guard let name = Name(rawValue: nameText) else {
      return .failure(
        Failure(
          error: InspectorError(.unknownCommand, "unknown command \"\(nameText.prefix(64))\""),
          id: id))
    }
    return .success(InspectorCommand(id: id, name: name, fields: object))
  }

  /// A record number argument: a non-negative integer.
  func seq(_ key: String) throws(InspectorError) -> UInt64 {
    guard let number = fields[key] as? NSNumber, !isBoolean(number) else {
      throw InspectorError(.badArgument, "\"\(key)\" must be a record number")
    }
    let value = number.doubleValue
    guard value.isFinite, value >= 0, value <= 9_007_199_254_740_991, value == value.rounded()
    else {
      throw InspectorError(.badArgument, "\"\(key)\" must be a record number")
    }
    return UInt64(value)
  }

  /// An optional record number argument.
  func optionalSeq(_ key: String) throws(InspectorError) -> UInt64? {
    if fields[key] == nil || fields[key] is NSNull { return nil }
    return try seq(key)
  }

  /// A Boolean argument.
  func bool(_ key: String) throws(InspectorError) -> Bool {
    guard let value = fields[key], isBoolean(value), let flag = value as? Bool else {
      throw InspectorError(.badArgument, "\"\(key)\" must be true or false")
    }
    return flag
  }

  /// A string argument of at most `limit` characters.
  func string(_ key: String, limit: Int = 4096) throws(InspectorError) -> String {
    guard let value = fields[key] as? String, value.count <= limit else {
      throw InspectorError(
        .badArgument, "\"\(key)\" must be a string of at most \(limit) characters")
    }
    return value
  }
}

/// Whether a value `JSONSerialization` made is a JSON `true` or `false` (which also casts to a
/// number, and numbers to `Bool`).
private func isBoolean(_ value: Any) -> Bool {
  if !(value is NSNumber) { return value is Bool }
  return String(describing: type(of: value)).contains("Boolean")
}

/// How deeply arrays and objects nest in JSON `text` (brackets inside strings do not count),
/// found without parsing it.
private func nestingDepth(of text: String) -> Int {
  var depth = 0
  var deepest = 0
  var inString = false
  var escaped = false
  for byte in text.utf8 {
    if inString {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
      continue
    }
    switch byte {
    case UInt8(ascii: "\""): inString = true
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      depth += 1
      deepest = max(deepest, depth)
    case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
    default: break
    }
  }
  return deepest
}
