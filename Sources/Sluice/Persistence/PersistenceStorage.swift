import Foundation

/// One persisted state: its key, the schema version it was written with, its `Codable` form
/// (JSON) and when it was written.
public struct PersistedRecord: Sendable, Hashable {
  /// The full key, namespace included (`"sluice.settings"`).
  public let key: String
  /// The schema version of `data`.
  public let version: Int
  /// The state, encoded as JSON.
  public let data: Data
  /// When the record was written.
  public let updatedAt: Date

  /// Creates a record.
  public init(key: String, version: Int, data: Data, updatedAt: Date) {
    self.key = key
    self.version = version
    self.data = data
    self.updatedAt = updatedAt
  }
}

/// Where persisted states live: a backend (SQLite, a JSON file, UserDefaults, memory).
///
/// A backend stores records by key. It is called from any thread, possibly from two at once
/// (a write-through lane and a `saveNow()`), so it must be thread-safe, as the built-in ones
/// are. Implement it to add a backend; pick the built-in ones with ``PersistenceKey``'s static
/// factories.
public protocol PersistenceStorage: Sendable {
  /// The record under `key`, or `nil` when there is none.
  ///
  /// - Throws: ``PersistenceError/corrupt(key:bytes:reason:)`` when the stored bytes are not a
  ///   record (a truncated or overwritten file), so that they can be quarantined; any other
  ///   error when the storage cannot be read.
  func read(_ key: String) throws -> PersistedRecord?

  /// Writes records, all or none; when it returns, they are durable.
  func write(_ records: [PersistedRecord]) throws

  /// Keeps `bytes` aside under a new key derived from `key`, never overwriting anything;
  /// returns that key.
  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String

  /// Makes writes durable that the backend buffers (UserDefaults); nothing for the others.
  func synchronize() throws
}

extension PersistenceStorage {
  public func synchronize() throws {}
}

/// A backend that stores each record as the bytes of its envelope (``RecordEnvelope``): a
/// record that cannot be used is quarantined as it is stored, envelope included, not only its
/// state's bytes.
package protocol EnvelopeStorage: PersistenceStorage {
  /// The bytes under `key`, exactly as stored; `nil` when there are none.
  func storedBytes(_ key: String) throws -> Data?
}

/// The key a quarantined record is kept under: `"<key>.quarantine.<milliseconds>"`, plus a
/// counter when that is taken.
package func quarantineKey(
  for key: String, at date: Date = Date(), isTaken: (String) throws -> Bool
) rethrows -> String {
  let base = "\(key).quarantine.\(Int64(date.timeIntervalSince1970 * 1_000))"
  var candidate = base
  var counter = 1
  while try isTaken(candidate) {
    counter += 1
    candidate = "\(base)-\(counter)"
  }
  return candidate
}
