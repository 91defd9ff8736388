import Foundation
import GRDB
import Sluice

/// The embedded default backend: records in an SQLite database through GRDB.
///
/// One database file holds the records of any number of stores, in a table
/// `sluice_records(key, version, data, updated_at)`; quarantined bytes go to
/// `sluice_quarantine`. The database runs in WAL mode with `synchronous = FULL`, so a write is
/// durable when it returns: `flush()` returns only after the state reached the disk.
///
/// ```swift
/// let database = try SQLiteStorage(path: supportFolder.appendingPathComponent("app.sqlite").path)
/// let settings = Store(initialState: Settings(), reducer: settingsReducer,
///                      persistence: .sqlite("settings", in: database))
/// let session = Store(initialState: Session(), reducer: sessionReducer,
///                     persistence: .sqlite("session", in: database))
/// ```
///
/// Share one `SQLiteStorage` per file between the stores of a process.
public final class SQLiteStorage: PersistenceStorage, Sendable {
  /// The database file, or `nil` for an in-memory database.
  public let path: String?
  private let writer: any DatabaseWriter

  /// How long an open or a write waits for another connection (of this or another process)
  /// that holds the database, before it fails with `SQLITE_BUSY`: 10 seconds.
  public static let busyTimeout: TimeInterval = 10

  /// Opens (or creates) the database at `path`, and its tables. When another process holds the
  /// file, waits for it (at most ``busyTimeout``).
  ///
  /// - Throws: GRDB's `DatabaseError` when the file cannot be opened (a missing folder, no
  ///   permission, not a database).
  public init(path: String) throws {
    self.path = path
    var configuration = Configuration()
    // Another process may hold the file (writing, or recovering it after a crash): wait for it
    // instead of failing with "database is locked".
    configuration.busyMode = .timeout(SQLiteStorage.busyTimeout)
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    writer = try DatabasePool(path: path, configuration: configuration)
    try Self.migrate(writer)
  }

  /// A database in memory (for tests).
  public init() throws {
    path = nil
    writer = try DatabaseQueue()
    try Self.migrate(writer)
  }

  private static func migrate(_ writer: any DatabaseWriter) throws {
    try writer.write { db in
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS sluice_records (
            key TEXT PRIMARY KEY NOT NULL,
            version INTEGER NOT NULL,
            data BLOB NOT NULL,
            updated_at DOUBLE NOT NULL
          );
          CREATE TABLE IF NOT EXISTS sluice_quarantine (
            key TEXT PRIMARY KEY NOT NULL,
            original_key TEXT NOT NULL,
            data BLOB NOT NULL,
            reason TEXT NOT NULL,
            quarantined_at DOUBLE NOT NULL
          );
          """)
    }
  }

  public func read(_ key: String) throws -> PersistedRecord? {
    try writer.read { db in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT version, data, updated_at FROM sluice_records WHERE key = ?",
          arguments: [key])
      else { return nil }
      // Decoded with `try`: a row of the wrong types (written by another tool, or damaged) is
      // corrupt data to quarantine, never a trap.
      do {
        let version = try row.decode(Int.self, forColumn: "version")
        let data = try row.decode(Data.self, forColumn: "data")
        let updatedAt = try row.decode(Double.self, forColumn: "updated_at")
        return PersistedRecord(
          key: key, version: version, data: data,
          updatedAt: Date(timeIntervalSince1970: updatedAt))
      } catch {
        throw PersistenceError.corrupt(
          key: key, bytes: Self.bytes(of: row),
          reason: "the row does not have the types of a record: \(error)")
      }
    }
  }

  /// The `data` column's bytes when it holds a blob or text, the row's description otherwise.
  private static func bytes(of row: Row) -> Data {
    let value: DatabaseValue = row["data"]
    switch value.storage {
    case .blob(let data): return data
    case .string(let text): return Data(text.utf8)
    default: return Data(row.description.utf8)
    }
  }

  public func write(_ records: [PersistedRecord]) throws {
    try writer.write { db in
      for record in records {
        try db.execute(
          sql: """
            INSERT INTO sluice_records (key, version, data, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET
              version = excluded.version, data = excluded.data, updated_at = excluded.updated_at
            """,
          arguments: [
            record.key, record.version, record.data, record.updatedAt.timeIntervalSince1970,
          ])
      }
    }
  }

  public func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try writer.write { db in
      let now = Date()
      let target = try quarantineKey(for: key, at: now) { candidate in
        try Bool.fetchOne(
          db, sql: "SELECT 1 FROM sluice_quarantine WHERE key = ?", arguments: [candidate]) != nil
      }
      try db.execute(
        sql: """
          INSERT INTO sluice_quarantine (key, original_key, data, reason, quarantined_at)
          VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [target, key, bytes, reason, now.timeIntervalSince1970])
      return target
    }
  }

  /// The bytes quarantined under `key` (a key that `RestoreOutcome.discarded(_:quarantineKey:)`
  /// names), with the reason.
  public func quarantined(_ key: String) throws -> (data: Data, reason: String)? {
    try writer.read { db in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT data, reason FROM sluice_quarantine WHERE key = ?", arguments: [key])
      else { return nil }
      return (
        try row.decode(Data.self, forColumn: "data"),
        try row.decode(String.self, forColumn: "reason")
      )
    }
  }

  /// The quarantine keys of the bytes kept aside for `key`, oldest first.
  public func quarantineKeys(of key: String) throws -> [String] {
    try writer.read { db in
      try String.fetchAll(
        db,
        sql:
          "SELECT key FROM sluice_quarantine WHERE original_key = ? ORDER BY quarantined_at, key",
        arguments: [key])
    }
  }

  /// Every key of the records table.
  public func keys() throws -> [String] {
    try writer.read { db in
      try String.fetchAll(db, sql: "SELECT key FROM sluice_records ORDER BY key")
    }
  }
}

extension PersistenceKey {
  /// A key in an SQLite database (the embedded default); see ``SQLiteStorage``.
  public static func sqlite(_ name: String, in database: SQLiteStorage) -> PersistenceKey {
    PersistenceKey(name, storage: database)
  }
}
