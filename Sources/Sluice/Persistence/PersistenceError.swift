import Foundation

/// Why a state could not be restored or saved.
///
/// Persistence errors never crash and never lose data: they are reported on the store's and
/// dispatcher's ``ErrorChannel`` (source `.persistence`), and the last one is
/// ``PersistenceController/lastError``.
public enum PersistenceError: Error, Sendable, CustomStringConvertible {
  /// The stored bytes are not a record of the backend's format (a truncated file, garbage).
  case corrupt(key: String, bytes: Data, reason: String)
  /// The record was written by a newer schema than the code knows; it was left untouched, and
  /// the store does not save under that key until the code is updated.
  case newerVersion(key: String, stored: Int, supported: Int)
  /// A migration is missing between two versions.
  case missingMigration(key: String, from: Int, to: Int)
  /// A migration threw.
  case migrationFailed(key: String, from: Int, underlying: any Error)
  /// The record's data does not decode as the state (a changed schema without a migration).
  case undecodable(key: String, version: Int, underlying: any Error)
  /// The state does not encode.
  case unencodable(key: String, underlying: any Error)
  /// The backend failed to read or write.
  case storage(key: String, operation: String, underlying: any Error)

  /// The key of the record concerned.
  public var key: String {
    switch self {
    case .corrupt(let key, _, _), .newerVersion(let key, _, _), .missingMigration(let key, _, _),
      .migrationFailed(let key, _, _), .undecodable(let key, _, _), .unencodable(let key, _),
      .storage(let key, _, _):
      key
    }
  }

  public var description: String {
    switch self {
    case .corrupt(let key, let bytes, let reason):
      "the record '\(key)' is corrupt (\(bytes.count) bytes): \(reason)"
    case .newerVersion(let key, let stored, let supported):
      "the record '\(key)' has schema version \(stored), newer than this code's \(supported); "
        + "it was left untouched and is not overwritten"
    case .missingMigration(let key, let from, let to):
      "the record '\(key)' needs a migration from version \(from) to \(to), and there is none"
    case .migrationFailed(let key, let from, let underlying):
      "the migration of '\(key)' from version \(from) failed: \(underlying)"
    case .undecodable(let key, let version, let underlying):
      "the record '\(key)' (version \(version)) does not decode as the state: \(underlying)"
    case .unencodable(let key, let underlying):
      "the state of '\(key)' does not encode: \(underlying)"
    case .storage(let key, let operation, let underlying):
      "could not \(operation) '\(key)': \(underlying)"
    }
  }
}
