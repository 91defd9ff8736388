import Foundation
import GRDB
import Sluice

/// The embedded default backend: records in an SQLite database through GRDB.
///
/// One database file holds the records of any number of stores, in a table
/// `sluice_records(key, version, data, updated_at)`; quarantined bytes go to
/// `sluice_quarantine`. GRDB's `DatabaseMigrator` creates the tables and records what it did
/// in `grdb_migrations`. The database runs in WAL mode with `synchronous = FULL`, so a write is
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
/// Share one `SQLiteStorage` per file between the stores of a process. Other processes may
/// open the file at the same time: a connection that finds it held by another waits for it,
/// at most the busy timeout. A process that only reads opens the file with
/// ``Mode/readOnly``, which works on a file and a folder it cannot write.
public final class SQLiteStorage: PersistenceStorage, Sendable {
  /// How a storage opens its file: to read and write, or only to read.
  ///
  /// ```swift
  /// let viewer = try SQLiteStorage(path: path, mode: .readOnly)
  /// let keys = try viewer.keys()
  /// ```
  public enum Mode: Sendable, Hashable {
    /// Reads and writes; creates the file and its tables when missing, and applies the
    /// schema's migrations.
    case readWrite
    /// Only reads: the file must exist with the current schema; nothing is ever written to
    /// it, and writes throw ``SQLiteStorageError/Kind/readOnly``.
    case readOnly
  }

  /// The database file, or `nil` for an in-memory database.
  let path: String?
  /// Whether the storage writes, or only reads.
  let mode: Mode
  /// Every read goes through it; the same connections as `writer` in read-write mode.
  let reader: any DatabaseReader
  /// `nil` in read-only mode.
  let writer: (any DatabaseWriter)?
  /// How long an open or a write waits for a database that another connection holds.
  let waitLimit: Duration

  /// How long an open or a write waits, by default, for another connection (of this or
  /// another process) that holds the database, before it fails with
  /// ``SQLiteStorageError/Kind/busy``: 10 seconds.
  static var busyTimeout: Duration { .seconds(10) }

  /// Opens the database at `path`: in read-write mode, creates it and its tables when needed;
  /// in read-only mode, checks that it has them. Without a path, opens a database in memory,
  /// with the tables, for tests and previews (read-write whatever the mode).
  ///
  /// When another connection (of this process or another) holds the file — writing, or
  /// recovering it after a crash — the open and each later write wait for it, at most
  /// `busyTimeout`, then fail with ``SQLiteStorageError/Kind/busy``. Reads do not wait for
  /// writers (WAL mode).
  ///
  /// A read-write open applies the schema's migrations that the file has not recorded yet
  /// (GRDB's `DatabaseMigrator`); a file made by an earlier SluiceSQLite, before the
  /// migrator, keeps its tables and records. A read-only open writes nothing, never creates the
  /// file, and works when neither the file nor its folder can be written, provided a read-write
  /// open of this version made the file (it keeps SQLite's `-wal` and `-shm` files beside it,
  /// which a reader needs there).
  ///
  /// ```swift
  /// let database = try SQLiteStorage(path: path)
  /// let scratch = try SQLiteStorage()  // in memory
  /// let impatient = try SQLiteStorage(path: path, busyTimeout: .milliseconds(200))
  /// let viewer = try SQLiteStorage(path: path, mode: .readOnly)
  /// ```
  ///
  /// - Parameters:
  ///   - path: The database file; `nil` (the default) for a database in memory.
  ///   - mode: ``Mode/readWrite`` (the default), or ``Mode/readOnly``.
  ///   - busyTimeout: How long an open or a write waits for a database that another connection
  ///     holds; 10 seconds by default.
  /// - Throws: ``SQLiteStorageError`` when another connection held the file for longer than
  ///   `busyTimeout` (``SQLiteStorageError/Kind/busy``), when a newer version of SluiceSQLite
  ///   migrated it (``SQLiteStorageError/Kind/newerSchema``), and in read-only mode when the
  ///   file lacks the schema (``SQLiteStorageError/Kind/missingSchema``,
  ///   ``SQLiteStorageError/Kind/outdatedSchema``) or cannot be read
  ///   (``SQLiteStorageError/Kind/missingWALFiles``). GRDB's `DatabaseError` when the file
  ///   cannot be opened: a missing folder (or, in read-only mode, file), no permission, not a
  ///   database. The file is left as it was. In memory, GRDB's `DatabaseError` when SQLite
  ///   cannot make the database.
  public init(
    path: String? = nil, mode: Mode = .readWrite, busyTimeout: Duration = .seconds(10)
  ) throws {
    waitLimit = busyTimeout
    guard let path else {
      self.path = nil
      self.mode = .readWrite
      let queue = try DatabaseQueue()
      try Self.migrate(queue, path: nil)
      reader = queue
      writer = queue
      return
    }
    self.path = path
    self.mode = mode
    let configuration = Self.configuration(mode, busyTimeout: busyTimeout)
    switch mode {
    case .readWrite:
      let pool = try Self.waiting("open", path, busyTimeout) {
        let pool = try DatabasePool(path: path, configuration: configuration)
        try Self.synchronousFull(pool)
        try Self.migrate(pool, path: path)
        return pool
      }
      reader = pool
      writer = pool
    case .readOnly:
      reader = try Self.waiting("open", path, busyTimeout) {
        do {
          // Both the open (GRDB reads the schema) and the check read the file.
          let pool = try DatabasePool(path: path, configuration: configuration)
          try pool.read { db in try Self.checkSchema(db, path: path) }
          return pool
        } catch let error as DatabaseError
          where error.extendedResultCode == .SQLITE_READONLY_DIRECTORY
          || error.extendedResultCode == .SQLITE_READONLY_CANTINIT
        {
          throw SQLiteStorageError(
            .missingWALFiles, path: path, operation: "open", underlying: error)
        }
      }
      writer = nil
    }
  }

  /// The record under `key`, or `nil` when there is none.
  ///
  /// A store calls it when it is made, to restore its state; call it to look at a record.
  ///
  /// ```swift
  /// let record = try database.read("sluice.settings")  // version, JSON bytes, date
  /// ```
  ///
  /// - Parameter key: The full key, namespace included (`"sluice.settings"`).
  /// - Returns: The record, or `nil`.
  /// - Throws: `PersistenceError.corrupt(key:bytes:reason:)` when the row does not have the
  ///   types of a record; ``SQLiteStorageError/Kind/busy``; GRDB's `DatabaseError` when the
  ///   file cannot be read (a damaged page).
  public func read(_ key: String) throws -> PersistedRecord? {
    try reading("read") { db in
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

  /// Writes `records`, all or none, in one transaction; durable when it returns.
  ///
  /// Stores call it to save; call it to put records in place, as another version of an app
  /// would have left them.
  ///
  /// ```swift
  /// try database.write([
  ///   PersistedRecord(key: "sluice.settings", version: 1, data: json, updatedAt: Date())
  /// ])
  /// ```
  ///
  /// - Parameter records: The records, each replacing the one under its key.
  /// - Throws: ``SQLiteStorageError/Kind/readOnly`` in read-only mode;
  ///   ``SQLiteStorageError/Kind/busy`` when another connection held the database for longer
  ///   than the busy timeout; GRDB's `DatabaseError` when SQLite fails. Nothing is written then.
  public func write(_ records: [PersistedRecord]) throws {
    try writing("write") { db in
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

  /// Keeps `bytes` aside in `sluice_quarantine`, under a new key derived from `key`, never
  /// overwriting anything.
  ///
  /// A store calls it for a record it cannot use, before it may replace it.
  ///
  /// ```swift
  /// let kept = try database.quarantine(bytes, of: "sluice.settings", reason: "not JSON")
  /// // "sluice.settings.quarantine.1700000000000"
  /// ```
  ///
  /// - Parameters:
  ///   - bytes: What to keep.
  ///   - key: The key the bytes were stored under.
  ///   - reason: Why they are set aside.
  /// - Returns: The quarantine key, for ``quarantined(_:)``.
  /// - Throws: ``SQLiteStorageError/Kind/readOnly`` in read-only mode;
  ///   ``SQLiteStorageError/Kind/busy``; GRDB's `DatabaseError` when SQLite fails.
  public func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try writing("quarantine") { db in
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
    try reading("read") { db in
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
    try reading("read") { db in
      try String.fetchAll(
        db,
        sql:
          "SELECT key FROM sluice_quarantine WHERE original_key = ? ORDER BY quarantined_at, key",
        arguments: [key])
    }
  }

  /// Every key of the records table.
  public func keys() throws -> [String] {
    try reading("read") { db in
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
