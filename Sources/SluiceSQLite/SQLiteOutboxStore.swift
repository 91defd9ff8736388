import Foundation
import GRDB
import Sluice

/// A shared lane's outbox in a local SQLite file: the actions a node dispatched survive a crash
/// of its process until the log takes them.
///
/// ```swift
/// let lane = try SharedLane(
///   engine: PostgresLogEngine(configuration: try .init(url: url)), actions: actions,
///   node: "worker-1",
///   outbox: try SQLiteOutboxStore(path: ".sluice/outbox.sqlite"))
/// ```
///
/// Each write is durable when it returns (`synchronous = FULL`). The file may be shared by
/// several nodes (each record carries its origin) and with an ``SQLiteStorage``; it should not
/// be the shared log's own file, whose appends it would wait for. Each record is kept under its
/// lane, so that nodes named alike in different lanes do not send each other's actions; a file
/// written before lanes had its records moved to the lane named `"default"`.
public final class SQLiteOutboxStore: SharedOutboxStore {
  // Sendable: immutable.
  private let file: SQLiteFile

  /// The database file.
  var path: String { file.path }

  /// Opens the outbox in the SQLite file at `path`, creating the file and its table when
  /// needed.
  ///
  /// - Throws: ``SQLiteStorageError`` (``SQLiteStorageError/Kind/busy``) when another process
  ///   holds the file for longer than `busyTimeout`, or GRDB's `DatabaseError` when the file
  ///   cannot be opened (a missing folder, a file that is not a database).
  public init(path: String, busyTimeout: Duration = .seconds(5)) throws {
    file = try SQLiteFile(
      path: path, mode: .readWrite, busyTimeout: busyTimeout, migrator: Self.migrator,
      purpose: "open the shared lane's outbox", thread: "sluice.shared-outbox.sqlite")
  }

  /// The outbox's schema, as GRDB migrations.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1-shared-outbox") { db in
      try db.create(table: "sluice_outbox") { table in
        table.column("origin", .text).notNull()
        table.column("origin_sequence", .integer).notNull()
        table.column("name", .text).notNull()
        table.column("payload", .blob).notNull()
        table.primaryKey(["origin", "origin_sequence"])
      }
    }
    // Records keyed by lane; those of a file without lanes go to the default lane.
    migrator.registerMigration("v2-shared-outbox-lanes") { db in
      try db.execute(
        sql: """
          CREATE TABLE sluice_outbox_lanes (
            lane TEXT NOT NULL, origin TEXT NOT NULL, origin_sequence INTEGER NOT NULL,
            name TEXT NOT NULL, payload BLOB NOT NULL,
            PRIMARY KEY (lane, origin, origin_sequence));
          INSERT INTO sluice_outbox_lanes SELECT 'default', * FROM sluice_outbox;
          DROP TABLE sluice_outbox;
          ALTER TABLE sluice_outbox_lanes RENAME TO sluice_outbox;
          """)
    }
    return migrator
  }()

  /// Every record kept for `lane`, ordered by origin, then origin sequence.
  ///
  /// - Throws: GRDB's `DatabaseError` (`SQLITE_MISMATCH`) for a row this store did not write (a
  ///   NULL, another type, a negative number), so that the node does not start.
  public func keptRecords(of lane: String) async throws -> [SharedLogRecord] {
    try await file.reading("read the shared lane's outbox") { db in
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT origin, origin_sequence, name, payload FROM sluice_outbox WHERE lane = ?
          ORDER BY origin, origin_sequence
          """, arguments: [lane])
      return try rows.map { row in
        try row.record { column in
          DatabaseError(
            resultCode: .SQLITE_MISMATCH,
            message: "a row of the shared lane's outbox does not decode: \(row.problem(column))")
        }
      }
    }
  }

  public func keep(_ records: [SharedLogRecord], for lane: String) async throws {
    guard !records.isEmpty else { return }
    let rows = try records.map { record in
      (record, try SQLiteFile.column(record.originSequence, "keep actions in the outbox"))
    }
    try await file.writing("keep actions in the shared lane's outbox") { db in
      try db.inTransaction(.immediate) {
        let insert = try db.cachedStatement(
          sql: """
            INSERT OR IGNORE INTO sluice_outbox (lane, origin, origin_sequence, name, payload)
            VALUES (?, ?, ?, ?, ?)
            """)
        for (record, originSequence) in rows {
          try insert.execute(
            arguments: [lane, record.origin, originSequence, record.name, record.payload])
        }
        return .commit
      }
    }
  }

  public func forget(origin: String, through originSequence: UInt64, of lane: String)
    async throws
  {
    // A number past what SQLite stores is past every kept record.
    let last = Int64(exactly: originSequence) ?? .max
    try await file.writing("forget actions of the shared lane's outbox") { db in
      try db.execute(
        sql: "DELETE FROM sluice_outbox WHERE lane = ? AND origin = ? AND origin_sequence <= ?",
        arguments: [lane, origin, last])
    }
  }
}
