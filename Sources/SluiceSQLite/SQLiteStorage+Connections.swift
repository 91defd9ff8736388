import Foundation
import GRDB

#if canImport(GRDBSQLite)
  import GRDBSQLite
#else
  import SQLite3
#endif

// How an `SQLiteStorage` talks to its file: the connections' configuration, and the
// transactions every operation runs in, with SQLite's "database is locked" made an
// `SQLiteStorageError`.

extension SQLiteStorage {
  /// The configuration of every connection to a file.
  static func configuration(_ mode: Mode, busyTimeout: Duration) -> Configuration {
    var configuration = Configuration()
    configuration.readonly = mode == .readOnly
    // Another process may hold the file (writing, or recovering it after a crash): wait for it
    // instead of failing with "database is locked".
    configuration.busyMode = .timeout(busyTimeout.inSeconds)
    configuration.prepareDatabase { db in
      // Persistent WAL mode, as GRDB's "Sharing a Database" recommends, so that read-only
      // connections can open the file where they cannot create SQLite's `-wal` and `-shm`
      // files: a writer leaves them beside the database when it closes.
      if !db.configuration.readonly {
        var persist: CInt = 1
        let code = sqlite3_file_control(
          db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
      }
      // A limit makes the last connection to close empty the `-wal` file it keeps, so that the
      // main file holds every write.
      try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
    }
    return configuration
  }

  /// Makes a write on `pool` durable when it returns, against a power loss too. GRDB sets
  /// `synchronous = NORMAL` when it turns WAL mode on, after the connection's
  /// `prepareDatabase`: every write goes through this one connection.
  static func synchronousFull(_ pool: DatabasePool) throws {
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
  }

  /// Reads in a transaction of its own; see ``waiting(_:_:_:_:)``.
  func reading<T>(_ operation: String, _ value: (Database) throws -> T) throws -> T {
    try Self.waiting(operation, path, waitLimit) { try reader.read(value) }
  }

  /// Writes in a transaction of its own; throws ``SQLiteStorageError/Kind/readOnly`` in
  /// read-only mode, and see ``waiting(_:_:_:_:)``.
  func writing<T>(_ operation: String, _ updates: (Database) throws -> T) throws -> T {
    guard let writer else {
      throw SQLiteStorageError(.readOnly, path: path, operation: operation)
    }
    return try Self.waiting(operation, path, waitLimit) { try writer.write(updates) }
  }

  /// `PRAGMA <name>` on the connection that writes (in read-only mode, on a reader), for tests
  /// of the configuration.
  package func pragma(_ name: String) throws -> String? {
    let sql = "PRAGMA \(name)"
    if let writer {
      return try writer.writeWithoutTransaction { db in try String.fetchOne(db, sql: sql) }
    }
    return try reader.read { db in try String.fetchOne(db, sql: sql) }
  }

  /// Runs `body`, turning SQLite's "database is locked" (`SQLITE_BUSY`, once the busy timeout
  /// passed) into ``SQLiteStorageError/Kind/busy``.
  static func waiting<T>(
    _ operation: String, _ path: String?, _ timeout: Duration, _ body: () throws -> T
  ) throws -> T {
    do {
      return try body()
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      throw SQLiteStorageError(
        .busy, path: path, operation: operation, busyTimeout: timeout, underlying: error)
    }
  }
}
