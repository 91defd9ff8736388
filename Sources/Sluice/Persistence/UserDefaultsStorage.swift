import Foundation

/// A backend in `UserDefaults` (Flask's archive), each record as the bytes of a JSON envelope
/// under its key.
///
/// On Linux, `UserDefaults` keeps a suite in a property-list file under `XDG_CONFIG_HOME`
/// (or `~/.config`) and writes it on `synchronize()`, which `PersistenceController.flush()`
/// calls. Two processes writing the same suite lose each other's keys: each rewrites the whole
/// file from its own copy. Give each process its own suite, or use the SQLite or JSON-file
/// backends, which write one record at a time.
final class UserDefaultsStorage: PersistenceStorage, EnvelopeStorage, @unchecked Sendable {
  // @unchecked Sendable: `UserDefaults` is thread-safe.
  /// The defaults written to.
  let defaults: UserDefaults
  /// The suite name, `nil` for the standard defaults.
  let suiteName: String?

  /// A storage in the suite `suiteName` (the standard defaults when `nil`).
  init(suiteName: String? = nil) {
    self.suiteName = suiteName
    defaults = suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
  }

  func read(_ key: String) throws -> PersistedRecord? {
    guard let object = defaults.object(forKey: key) else { return nil }
    guard let bytes = object as? Data else {
      // Kept whole, as an XML property list (a Flask archive is a dictionary).
      let kept =
        (try? PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0))
        ?? Data("\(object)".utf8)
      throw PersistenceError.corrupt(
        key: key, bytes: kept,
        reason: "the value is a \(type(of: object)), not a record; kept as a property list")
    }
    return try RecordEnvelope.decode(bytes, key: key)
  }

  package func storedBytes(_ key: String) throws -> Data? { defaults.data(forKey: key) }

  func write(_ records: [PersistedRecord]) throws {
    for record in records {
      defaults.set(try RecordEnvelope.encode(record), forKey: record.key)
    }
  }

  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    let target = quarantineKey(for: key) { defaults.object(forKey: $0) != nil }
    defaults.set(bytes, forKey: target)
    return target
  }

  func synchronize() throws {
    _ = defaults.synchronize()
  }
}

extension PersistenceKey {
  /// A key in `UserDefaults` (Flask's archive), each record as the bytes of a JSON envelope
  /// under `"<namespace>.<name>"`, in the suite `suiteName` (the standard defaults when `nil`).
  ///
  /// On Linux, `UserDefaults` keeps a suite in a property-list file under `XDG_CONFIG_HOME`
  /// (or `~/.config`) and writes it on ``PersistenceController/flush()``. Two processes writing
  /// the same suite lose each other's keys: each rewrites the whole file from its own copy.
  /// Give each process its own suite, or use the SQLite or JSON-file backends, which write one
  /// record at a time.
  public static func userDefaults(_ name: String, suiteName: String? = nil) -> PersistenceKey {
    PersistenceKey(name, storage: UserDefaultsStorage(suiteName: suiteName))
  }
}
