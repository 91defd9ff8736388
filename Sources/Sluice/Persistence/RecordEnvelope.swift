import Foundation

/// The self-describing form of a record for backends that store bytes (a JSON file,
/// UserDefaults): `{"key":…,"version":…,"updatedAt":…,"state":<the state's JSON>}`.
enum RecordEnvelope {
  private struct Header: Decodable {
    let key: String
    let version: Int
    let updatedAt: Double
  }

  /// The field `encode` writes last, and nothing before it can contain: the key before it is
  /// a JSON string, where quotes are escaped.
  private static let stateMarker = Array(",\"state\":".utf8)

  static func encode(_ record: PersistedRecord) throws -> Data {
    let key = try JSONEncoder().encode(record.key)
    var data = Data("{\"key\":".utf8)
    data.append(key)
    data.append(contentsOf: Data(",\"version\":\(record.version)".utf8))
    data.append(contentsOf: Data(",\"updatedAt\":\(record.updatedAt.timeIntervalSince1970)".utf8))
    data.append(contentsOf: Data(",\"state\":".utf8))
    data.append(record.data)
    data.append(contentsOf: Data("}".utf8))
    return data
  }

  /// The record in `bytes`; throws ``PersistenceError/corrupt(key:bytes:reason:)`` when they are
  /// not an envelope for `key`.
  ///
  /// The state's bytes are taken as they are, never decoded and encoded again: a number JSON
  /// can hold but `Double` cannot (a `UInt64`, a `Decimal`) comes back exactly.
  static func decode(_ bytes: Data, key: String) throws -> PersistedRecord {
    let header: Header
    let state: Data
    do {
      header = try JSONDecoder().decode(Header.self, from: bytes)
      state = try stateBytes(of: bytes)
    } catch {
      throw PersistenceError.corrupt(
        key: key, bytes: bytes, reason: "not a Sluice record (\(bytes.count) bytes): \(error)")
    }
    guard header.key == key else {
      throw PersistenceError.corrupt(
        key: key, bytes: bytes, reason: "the record is for the key '\(header.key)'")
    }
    return PersistedRecord(
      key: key, version: header.version, data: state,
      updatedAt: Date(timeIntervalSince1970: header.updatedAt))
  }

  /// The bytes of the `state` field. Where `encode` wrote the envelope, they are found as they
  /// are; an envelope edited by hand (fields reordered, reformatted) goes through `StateValue`.
  private static func stateBytes(of bytes: Data) throws -> Data {
    let all = [UInt8](bytes)
    if let start = firstIndex(of: stateMarker, in: all) {
      var end = all.count
      while end > start,
        all[end - 1] == UInt8(ascii: " ") || all[end - 1] == UInt8(ascii: "\n")
          || all[end - 1] == UInt8(ascii: "\r") || all[end - 1] == UInt8(ascii: "\t")
      {
        end -= 1
      }
      let valueStart = start + stateMarker.count
      if end > valueStart, all[end - 1] == UInt8(ascii: "}") {
        // The envelope parsed as JSON already; the slice is the state when it is one whole
        // value (its brackets close exactly at its end).
        if isOneValue(all[valueStart..<(end - 1)]) { return Data(all[valueStart..<(end - 1)]) }
      }
    }
    struct Whole: Decodable { let state: StateValue }
    return try JSONEncoder().encode(JSONDecoder().decode(Whole.self, from: bytes).state)
  }

  /// Whether `bytes` (a slice of valid JSON) is exactly one value: outside strings, its
  /// brackets never close more than they opened, and no comma appears at depth 0.
  private static func isOneValue(_ bytes: ArraySlice<UInt8>) -> Bool {
    var depth = 0
    var inString = false
    var escaped = false
    for byte in bytes {
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
      case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if depth < 0 { return false }
      case UInt8(ascii: ","): if depth == 0 { return false }
      default: break
      }
    }
    return depth == 0 && !inString && !bytes.isEmpty
  }

  private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    for index in 0...(haystack.count - needle.count)
    where haystack[index] == needle[0] && Array(haystack[index..<(index + needle.count)]) == needle
    {
      return index
    }
    return nil
  }
}
