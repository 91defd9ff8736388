import Foundation
import Sluice

/// A command a client sent (see <doc:InspectorProtocol>), read strictly: a message that is not
/// exactly what the protocol says is an ``InspectorError``, never a crash or a guess.
///
/// The text is decoded by `JSONDecoder`; every argument is read with a throwing conversion
/// from its JSON value, which tells a Boolean from a number.
struct InspectorCommand: Decodable {
  /// The most text one command may have.
  static let maxLength = 64 * 1024
  /// The deepest nesting of arrays and objects read (a command needs 2).
  static let maxNesting = 32
  /// The largest record number (2⁵³ − 1, as JavaScript counts).
  static let largestSeq: UInt64 = 9_007_199_254_740_991

  /// What the client asks for, with its arguments.
  enum Request: Equatable {
    case jump(seq: UInt64)
    case toggle(seq: UInt64, skip: Bool)
    /// `nil`: the record the client jumped to, or the newest.
    case apply(seq: UInt64?)
    case detail(seq: UInt64)
    case why(store: String, path: String)
    case exportTest(from: UInt64, through: UInt64)
    case observers, export, pause, resume, ping
  }

  /// The id the reply repeats (a number or a string), when the client gave one.
  let id: StateValue?
  let request: Request

  /// A message that is not a command, with the id it gave, if any.
  struct Failure: Error {
    let error: InspectorError
    let id: StateValue?
  }

  /// Parses `text`; the error carries the id when one could be read.
  static func parse(_ text: String) -> Result<InspectorCommand, Failure> {
    func failure(_ code: InspectorError.Code, _ message: String) -> Result<Self, Failure> {
      .failure(Failure(error: InspectorError(code, message), id: nil))
    }
    guard text.utf8.count <= maxLength else {
      return failure(.tooLarge, "a command may have at most \(maxLength) bytes")
    }
    // Checked before decoding: the decoder recurses once per level.
    guard nestingDepth(of: text) <= maxNesting else {
      return failure(.malformed, "nested deeper than \(maxNesting) levels")
    }
    do {
      return .success(try JSONDecoder().decode(InspectorCommand.self, from: Data(text.utf8)))
    } catch let error as Failure {
      return .failure(error)
    } catch {
      return failure(.malformed, "not a JSON object")
    }
  }

  private enum Key: String, CodingKey {
    case id, command, seq, skip, store, path, from, through
  }

  init(from decoder: any Decoder) throws {
    let fields = try decoder.container(keyedBy: Key.self)
    func failure(_ code: InspectorError.Code, _ message: String, id: StateValue? = nil)
      -> Failure
    {
      Failure(error: InspectorError(code, message), id: id)
    }
    switch try fields.decodeIfPresent(StateValue.self, forKey: .id) {
    case nil, .null?: id = nil
    case .string(let text)?: id = .string(String(text.prefix(128)))
    case .int(let number)?: id = .int(number)
    case .double(let number)? where number.isFinite: id = .double(number)
    default: throw failure(.malformed, "\"id\" must be a number or a string")
    }
    guard case .string(let name)? = try? fields.decodeIfPresent(StateValue.self, forKey: .command)
    else { throw failure(.malformed, "no \"command\" string", id: id) }
    do {
      request = try Self.request(named: name, in: fields)
    } catch {
      throw Failure(error: error, id: id)
    }
  }

  private static func request(named name: String, in fields: KeyedDecodingContainer<Key>)
    throws(InspectorError) -> Request
  {
    switch name {
    case "jump": return .jump(seq: try seq(.seq, in: fields))
    case "toggle": return .toggle(seq: try seq(.seq, in: fields), skip: try bool(.skip, in: fields))
    case "apply":
      return .apply(seq: value(.seq, in: fields) == .null ? nil : try seq(.seq, in: fields))
    case "detail": return .detail(seq: try seq(.seq, in: fields))
    case "why":
      return .why(
        store: try string(.store, limit: 64, in: fields), path: try string(.path, in: fields))
    case "exportTest":
      return .exportTest(from: try seq(.from, in: fields), through: try seq(.through, in: fields))
    case "observers": return .observers
    case "export": return .export
    case "pause": return .pause
    case "resume": return .resume
    case "ping": return .ping
    default: throw InspectorError(.unknownCommand, "unknown command \"\(name.prefix(64))\"")
    }
  }

  /// The JSON value of `key`; `null` when it is missing.
  private static func value(_ key: Key, in fields: KeyedDecodingContainer<Key>) -> StateValue {
    ((try? fields.decodeIfPresent(StateValue.self, forKey: key)) ?? nil) ?? .null
  }

  /// A record number: a non-negative integer, at most ``largestSeq``.
  private static func seq(_ key: Key, in fields: KeyedDecodingContainer<Key>)
    throws(InspectorError) -> UInt64
  {
    switch value(key, in: fields) {
    case .int(let number): if let seq = UInt64(exactly: number), seq <= largestSeq { return seq }
    case .double(let number):
      if let seq = UInt64(exactly: number), seq <= largestSeq { return seq }
    default: break
    }
    throw InspectorError(.badArgument, "\"\(key.rawValue)\" must be a record number")
  }

  private static func bool(_ key: Key, in fields: KeyedDecodingContainer<Key>)
    throws(InspectorError) -> Bool
  {
    guard case .bool(let flag) = value(key, in: fields) else {
      throw InspectorError(.badArgument, "\"\(key.rawValue)\" must be true or false")
    }
    return flag
  }

  /// A string of at most `limit` characters.
  private static func string(
    _ key: Key, limit: Int = 4096, in fields: KeyedDecodingContainer<Key>
  ) throws(InspectorError) -> String {
    guard case .string(let text) = value(key, in: fields), text.count <= limit else {
      throw InspectorError(
        .badArgument, "\"\(key.rawValue)\" must be a string of at most \(limit) characters")
    }
    return text
  }
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
