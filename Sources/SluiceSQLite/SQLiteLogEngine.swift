import Foundation
import GRDB
import Sluice

/// Shared logs in an SQLite file, any number of lanes by name: the processes of one machine
/// that open the same file share each lane's order through it.
///
/// Appends run in `BEGIN IMMEDIATE` transactions, so they serialize across processes, and are
/// durable when they return (`synchronous = FULL`: an fsync per append). Each batch takes the
/// numbers right after the last entry of its lane, with no gap, and a record whose origin and
/// origin sequence are already in the lane keeps its number when its name and payload are the
/// same (the `UNIQUE` constraint on lane, origin and origin sequence backs this up), and fails
/// the batch with `SharedLaneError.Kind.originConflict` when they differ. The file is in WAL
/// mode, so readers never wait for the appender. A process that finds the file locked longer
/// than `busyTimeout` gets ``SQLiteStorageError/Kind/busy``, and nothing is appended.
///
/// A node claims its name (``claimNode(_:of:)``) with an OS lock on a file in the folder
/// `<path>-nodes`, which the kernel releases when the process dies. A file made by a version
/// with one lane is migrated in place when opened read-write: its log and snapshots become the
/// lane `"default"`.
public final class SQLiteLogEngine: SharedLogEngine {
  // Sendable: immutable.
  private let file: SQLiteFile
  private let claims: SQLiteNodeClaims
  private let watcher: SQLiteLaneWatcher
  /// What the polling of ``waitForEntries(of:after:timeout:)`` waits on.
  private let clock: any Clock<Duration>

  /// The database file.
  var path: String { file.path }

  /// Opens the logs in the SQLite file at `path`: in read-write mode, creating the file and its
  /// tables when needed, or migrating a file of one lane; in read-only mode
  /// (``SQLiteStorage/Mode/readOnly``), writing nothing (a file without the log's tables reads
  /// as empty lanes, appends throw ``SQLiteStorageError/Kind/readOnly``, a file of one lane
  /// throws ``SQLiteStorageError/Kind/outdatedSchema`` until opened read-write once, and node
  /// claims are not taken, since such a node appends nothing).
  ///
  /// - Parameters:
  ///   - path: The database file.
  ///   - mode: Read-write (the default) or read-only.
  ///   - busyTimeout: How long an open or an append waits for a file another process holds.
  ///   - clock: What the pauses and the timeout of ``waitForEntries(of:after:timeout:)`` are
  ///     measured on; the continuous clock by default. Tests pass a test clock.
  /// - Throws: ``SQLiteStorageError`` (``SQLiteStorageError/Kind/busy``) when another process
  ///   holds the file for longer than `busyTimeout`, or GRDB's `DatabaseError` when the file
  ///   cannot be opened (a missing folder, a file that is not a database).
  public init(
    path: String, mode: SQLiteStorage.Mode = .readWrite, busyTimeout: Duration = .seconds(5),
    clock: any Clock<Duration> = ContinuousClock()
  ) throws {
    self.clock = clock
    // An acknowledged append survives a power loss, not only a crash (`synchronous = FULL`).
    let file = try SQLiteFile(
      path: path, mode: mode, busyTimeout: busyTimeout, migrator: Self.migrator,
      purpose: "open the shared log", thread: "sluice.shared-log.sqlite")
    self.file = file
    claims = SQLiteNodeClaims(folder: path + "-nodes", enabled: mode == .readWrite)
    watcher = SQLiteLaneWatcher(path: path) { lanes in
      try file.readHere { db in
        guard try Self.has("sluice_log", db, in: file) else { return [:] }
        var heads: [String: UInt64] = [:]
        for lane in lanes { heads[lane] = try Self.head(db, of: lane) }
        return heads
      }
    }
  }

  /// The shared log's schema, as GRDB migrations.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1-shared-log") { db in
      try db.create(table: "sluice_log") { table in
        table.primaryKey("sequence", .integer)
        table.column("origin", .text).notNull()
        table.column("origin_sequence", .integer).notNull()
        table.column("name", .text).notNull()
        table.column("payload", .blob).notNull()
        table.uniqueKey(["origin", "origin_sequence"])
      }
    }
    migrator.registerMigration("v1-shared-snapshots") { db in
      try db.create(table: "sluice_snapshot") { table in
        table.primaryKey("sequence", .integer)
        table.column("hash", .integer).notNull()
        table.column("body", .blob).notNull()
      }
    }
    // Many lanes: each table is keyed by lane; the rows of the one lane become the default lane.
    // ('default' is `SharedLane`'s default lane.)
    migrator.registerMigration(lanesMigration) { db in
      try db.execute(
        sql: """
          CREATE TABLE sluice_lane_log (
            lane TEXT NOT NULL, sequence INTEGER NOT NULL, origin TEXT NOT NULL,
            origin_sequence INTEGER NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL,
            PRIMARY KEY (lane, sequence), UNIQUE (lane, origin, origin_sequence));
          INSERT INTO sluice_lane_log
            SELECT 'default', sequence, origin, origin_sequence, name, payload FROM sluice_log;
          DROP TABLE sluice_log;
          ALTER TABLE sluice_lane_log RENAME TO sluice_log;
          CREATE TABLE sluice_lane_snapshot (
            lane TEXT NOT NULL, sequence INTEGER NOT NULL, hash INTEGER NOT NULL,
            body BLOB NOT NULL, PRIMARY KEY (lane, sequence));
          INSERT INTO sluice_lane_snapshot
            SELECT 'default', sequence, hash, body FROM sluice_snapshot;
          DROP TABLE sluice_snapshot;
          ALTER TABLE sluice_lane_snapshot RENAME TO sluice_snapshot;
          """)
    }
    return migrator
  }()

  /// The migration that keys the tables by lane.
  static let lanesMigration = "v2-shared-lanes"

  public func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
    try SharedLaneError.check(lane: lane, "append to the shared log")
    guard !records.isEmpty else { return [] }
    return try await file.writing("append to the shared log") { db in
      var numbers: [UInt64] = []
      numbers.reserveCapacity(records.count)
      try db.inTransaction(.immediate) {
        var head = try Self.head(db, of: lane)
        for record in records {
          let originSequence = try Self.column(record.originSequence)
          let lookup = try db.cachedStatement(
            sql: """
              SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
              WHERE lane = ? AND origin = ? AND origin_sequence = ?
              """)
          if let row = try Row.fetchOne(
            lookup, arguments: [lane, record.origin, originSequence])
          {
            let existing = try Self.entry(row, expected: nil)
            guard existing.record.name == record.name, existing.record.payload == record.payload
            else {
              throw SharedLaneError(
                .originConflict(
                  origin: record.origin, originSequence: record.originSequence,
                  sequence: existing.sequence),
                operation: "append to the shared log")
            }
            numbers.append(existing.sequence)
            continue
          }
          // The head is at most `Int64.max`: this adds without overflow, and `column` refuses
          // a number past what SQLite stores.
          head += 1
          try db.cachedStatement(
            sql: """
              INSERT INTO sluice_log (lane, sequence, origin, origin_sequence, name, payload)
              VALUES (?, ?, ?, ?, ?, ?)
              """
          ).execute(
            arguments: [
              lane, try Self.column(head), record.origin, originSequence, record.name,
              record.payload,
            ])
          numbers.append(head)
        }
        return .commit
      }
      return numbers
    }
  }

  public func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [(sequence: UInt64, record: SharedLogRecord)]
  {
    guard limit > 0 else { return [] }
    let start = try Self.column(sequence)
    return try await file.reading("read the shared log") { [file] db in
      guard try Self.has("sluice_log", db, in: file) else { return [] }
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
          WHERE lane = ? AND sequence > ? ORDER BY sequence LIMIT ?
          """,
        arguments: [lane, start, limit])
      // The entries before a row that does not decode; that row throws when it comes first.
      var entries: [(sequence: UInt64, record: SharedLogRecord)] = []
      for (index, row) in rows.enumerated() {
        do {
          entries.append(try Self.entry(row, expected: sequence + UInt64(index) + 1))
        } catch  where !entries.isEmpty {
          break
        }
      }
      return entries
    }
  }

  public func head(of lane: String) async throws -> UInt64 {
    try await file.reading("read the shared log") { [file] db in
      guard try Self.has("sluice_log", db, in: file) else { return 0 }
      return try Self.head(db, of: lane)
    }
  }

  /// The number of the last entry of `lane`.
  ///
  /// - Throws: ``SharedLaneError/Kind/undecodableEntry(sequence:reason:)`` when the largest
  ///   sequence is not a non-negative integer (a row this engine did not write), naming the
  ///   entry after the last good one.
  private static func head(_ db: Database, of lane: String) throws -> UInt64 {
    let sql = "SELECT MAX(sequence) AS head FROM sluice_log WHERE lane = ?"
    guard let row = try Row.fetchOne(db, sql: sql, arguments: [lane]) else { return 0 }
    if row.stored("head").isNull { return 0 }
    if let head = row.count("head") { return head }
    // Text and blobs sort after every number, and a negative number before: the damaged row
    // comes after the largest number, or is the only kind there is.
    let last =
      try Row.fetchOne(
        db, sql: sql + " AND typeof(sequence) = 'integer' AND sequence > 0", arguments: [lane]
      )?.count("head") ?? 0
    let reason = "an entry of lane '\(lane)' after \(last) has the sequence \(row.stored("head"))"
    throw SharedLaneError(.undecodableEntry(sequence: last + 1, reason: reason))
  }

  /// The entry in `row`, entry `expected` of its lane when known.
  ///
  /// - Throws: ``SharedLaneError/Kind/undecodableEntry(sequence:reason:)`` naming `expected`
  ///   (or the row's own number) when a column holds a NULL, another type or a negative number.
  private static func entry(_ row: Row, expected: UInt64?) throws -> (
    sequence: UInt64, record: SharedLogRecord
  ) {
    func failure(_ column: String) -> SharedLaneError {
      let sequence = expected ?? row.count("sequence") ?? 0
      return SharedLaneError(.undecodableEntry(sequence: sequence, reason: row.problem(column)))
    }
    guard let sequence = row.count("sequence") else { throw failure("sequence") }
    return (sequence, try row.record(failure))
  }

  /// Returns once the lane's head passed `sequence`, or at `timeout`: the engine's watcher (see
  /// `SQLiteLaneWatcher`) looks at the heads of the lanes waited for whenever the file
  /// changes, and ends only the waits of the lanes that moved, so that another process's append
  /// is seen within about a millisecond, and a wait costs no wake-up until then.
  public func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration)
    async throws
  {
    let id = watcher.register(lane: lane, after: sequence)
    defer { watcher.finish(id) }
    // After the registration: a change between this look and the wait is not missed.
    guard try await head(of: lane) <= sequence else { return }
    await withTaskGroup(of: Void.self) { [watcher, clock] group in
      group.addTask { try? await clock.sleep(for: timeout) }
      group.addTask { await watcher.wait(id) }
      await group.next()
      watcher.finish(id)
      group.cancelAll()
    }
  }

  public func claimNode(_ node: String, of lane: String) async throws {
    try SharedLaneError.check(lane: lane, "claim a node name")
    try claims.claim(node, of: lane)
  }

  public func releaseNode(_ node: String, of lane: String) async {
    claims.release(node, of: lane)
  }

  public func latestSnapshot(of lane: String) async throws -> SharedSnapshot? {
    try await readSnapshot(
      "SELECT body FROM sluice_snapshot WHERE lane = ? ORDER BY sequence DESC LIMIT 1", [lane])
  }

  public func snapshot(of lane: String, at sequence: UInt64) async throws -> SharedSnapshot? {
    try await readSnapshot(
      "SELECT body FROM sluice_snapshot WHERE lane = ? AND sequence = ?",
      [lane, try Self.column(sequence)])
  }

  public func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws {
    try SharedLaneError.check(lane: lane, "save a snapshot of the shared lane")
    let body = try JSONEncoder().encode(snapshot)
    let sequence = try Self.column(snapshot.sequence)
    let hash = Int64(bitPattern: snapshot.hash)
    try await file.writing("save a snapshot of the shared lane") { db in
      // The first snapshot after an entry stays: another node compares its hash with it.
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO sluice_snapshot (lane, sequence, hash, body) VALUES (?, ?, ?, ?)
          """,
        arguments: [lane, sequence, hash, body])
    }
  }

  private func readSnapshot(
    _ sql: String, _ arguments: [any DatabaseValueConvertible & Sendable]
  ) async throws -> SharedSnapshot? {
    let body = try await file.reading("read the shared lane's snapshots") { [file] db -> Data? in
      guard try Self.has("sluice_snapshot", db, in: file) else { return nil }
      return try Data.fetchOne(db, sql: sql, arguments: StatementArguments(arguments))
    }
    return try body.map { try JSONDecoder().decode(SharedSnapshot.self, from: $0) }
  }

  /// Whether `file` has `table` keyed by lane (always, in read-write mode, which made it); in
  /// read-only mode, throws ``SQLiteStorageError/Kind/outdatedSchema`` for a file of one lane,
  /// which only a read-write open migrates. The table's columns tell, not the migrator's records
  /// (a file may have lost them, or been made before the migrator kept them).
  private static func has(_ table: String, _ db: Database, in file: SQLiteFile) throws -> Bool {
    if file.mode == .readWrite { return true }
    guard try db.tableExists(table) else { return false }
    guard try db.columns(in: table).contains(where: { $0.name == "lane" }) else {
      throw SQLiteStorageError(
        .outdatedSchema, path: file.path, operation: "read the shared log",
        migrations: [Self.lanesMigration])
    }
    return true
  }

  /// A number as SQLite stores it (a signed 64-bit integer).
  private static func column(_ number: UInt64) throws -> Int64 {
    try SQLiteFile.column(number, "use the shared log")
  }
}
