import Foundation

/// The self-describing form of a record for backends that store bytes (a JSON file,
/// UserDefaults): `{"key":…,"version":…,"updatedAt":…,"state":<the state's JSON>}`.
enum RecordEnvelope {
  private struct Header: Decodable {
    let key: String
    let version: Int
    let updatedAt: Double
    let state: StateValue
  }

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
  static func decode(_ bytes: Data, key: String) throws -> PersistedRecord {
    let header: Header
    do {
      header = try JSONDecoder().decode(Header.self, from: bytes)
    } catch {
      throw PersistenceError.corrupt(
        key: key, bytes: bytes, reason: "not a Sluice record (\(bytes.count) bytes): \(error)")
    }
    guard header.key == key else {
      throw PersistenceError.corrupt(
        key: key, bytes: bytes, reason: "the record is for the key '\(header.key)'")
    }
    let state: Data
    do {
      state = try JSONEncoder().encode(header.state)
    } catch {
      throw PersistenceError.corrupt(key: key, bytes: bytes, reason: "\(error)")
    }
    return PersistedRecord(
      key: key, version: header.version, data: state,
      updatedAt: Date(timeIntervalSince1970: header.updatedAt))
  }
}
