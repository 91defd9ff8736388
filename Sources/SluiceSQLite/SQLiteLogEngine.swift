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
/// the batch with ``SharedLogError/Kind/originConflict(origin:originSequence:sequence:)`` when
/// they differ. The file is in WAL mode, so readers never wait for the appender. A process
/// that finds the file locked longer than `busyTimeout` gets ``SQLiteStorageError`` with kind
/// ``SQLiteStorageError/Kind/busy``, and nothing is appended.
///
/// A node claims its name (``claimNode(_:of:)``) with an OS lock on a file in the folder
/// `<path>-nodes`, which the kernel releases when the process dies. A file made by a version
/// with one lane is migrated in place when opened read-write: its log and snapshots become the
/// lane ``SharedLane/defaultLane``.
public final class SQLiteLogEngine: SharedSnapshotEngine {
  // Sendable: immutable.
  private let file: SQLiteFile
  private let claims: SQLiteNodeClaims
  /// What the polling of ``waitForEntries(of:after:timeout:)`` waits on.
  private let clock: any Clock<Duration>

  /// The database file.
  public var path: String { file.path }

  /// The longest pause between two looks at the log in ``waitForEntries(of:after:timeout:)``.
  static var longestPoll: Duration { .milliseconds(16) }

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
    file = try SQLiteFile(
      path: path, mode: mode, busyTimeout: busyTimeout, migrator: Self.migrator,
      purpose: "open the shared log", thread: "sluice.shared-log.sqlite")
    claims = SQLiteNodeClaims(folder: path + "-nodes", enabled: mode == .readWrite)
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
    migrator.registerMigration(lanesMigration) { db in
      let lane = SharedLane.defaultLane
      try db.execute(
        sql: """
          CREATE TABLE sluice_lane_log (
            lane TEXT NOT NULL, sequence INTEGER NOT NULL, origin TEXT NOT NULL,
            origin_sequence INTEGER NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL,
            PRIMARY KEY (lane, sequence), UNIQUE (lane, origin, origin_sequence))
          """)
      try db.execute(
        sql: """
          INSERT INTO sluice_lane_log
          SELECT ?, sequence, origin, origin_sequence, name, payload FROM sluice_log
          """, arguments: [lane])
      try db.execute(sql: "DROP TABLE sluice_log")
      try db.execute(sql: "ALTER TABLE sluice_lane_log RENAME TO sluice_log")
      try db.execute(
        sql: """
          CREATE TABLE sluice_lane_snapshot (
            lane TEXT NOT NULL, sequence INTEGER NOT NULL, hash INTEGER NOT NULL,
            body BLOB NOT NULL, PRIMARY KEY (lane, sequence))
          """)
      try db.execute(
        sql: "INSERT INTO sluice_lane_snapshot SELECT ?, sequence, hash, body FROM sluice_snapshot",
        arguments: [lane])
      try db.execute(sql: "DROP TABLE sluice_snapshot")
      try db.execute(sql: "ALTER TABLE sluice_lane_snapshot RENAME TO sluice_snapshot")
    }
    return migrator
  }()

  /// The migration that keys the tables by lane.
  static let lanesMigration = "v2-shared-lanes"

  public func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
    try SharedLogError.check(lane: lane, "append to the shared log")
    guard !records.isEmpty else { return [] }
    return try await file.writing("append to the shared log") { db in
      var numbers: [UInt64] = []
      numbers.reserveCapacity(records.count)
      try db.inTransaction(.immediate) {
        var head =
          try Int64.fetchOne(
            db, sql: "SELECT MAX(sequence) FROM sluice_log WHERE lane = ?", arguments: [lane])
          ?? 0
        for record in records {
          let originSequence = try Self.column(record.originSequence)
          let lookup = try db.cachedStatement(
            sql: """
              SELECT sequence, name, payload FROM sluice_log
              WHERE lane = ? AND origin = ? AND origin_sequence = ?
              """)
          if let row = try Row.fetchOne(
            lookup, arguments: [lane, record.origin, originSequence])
          {
            let existing: Int64 = row["sequence"]
            let name: String = row["name"]
            let payload: Data = row["payload"]
            guard name == record.name, payload == record.payload else {
              throw SharedLogError(
                .originConflict(
                  origin: record.origin, originSequence: record.originSequence,
                  sequence: UInt64(existing)),
                operation: "append to the shared log")
            }
            numbers.append(UInt64(existing))
            continue
          }
          head += 1
          try db.cachedStatement(
            sql: """
              INSERT INTO sluice_log (lane, sequence, origin, origin_sequence, name, payload)
              VALUES (?, ?, ?, ?, ?, ?)
              """
          ).execute(
            arguments: [lane, head, record.origin, originSequence, record.name, record.payload])
          numbers.append(UInt64(head))
        }
        return .commit
      }
      return numbers
    }
  }

  public func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [SharedLogEntry]
  {
    guard limit > 0 else { return [] }
    let start = try Self.column(sequence)
    return try await file.reading("read the shared log") { [self] db in
      guard try has("sluice_log", db) else { return [] }
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
          WHERE lane = ? AND sequence > ? ORDER BY sequence LIMIT ?
          """,
        arguments: [lane, start, limit])
      return rows.map { row in
        let number: Int64 = row["sequence"]
        let originSequence: Int64 = row["origin_sequence"]
        return SharedLogEntry(
          sequence: UInt64(number),
          record: SharedLogRecord(
            origin: row["origin"], originSequence: UInt64(originSequence), name: row["name"],
            payload: row["payload"]))
      }
    }
  }

  public func head(of lane: String) async throws -> UInt64 {
    try await file.reading("read the shared log") { [self] db in
      guard try has("sluice_log", db) else { return 0 }
      return UInt64(
        try Int64.fetchOne(
          db, sql: "SELECT MAX(sequence) FROM sluice_log WHERE lane = ?", arguments: [lane]) ?? 0)
    }
  }

  /// Looks at the lane's head, pausing 1 ms, then twice as long each time up to 16 ms: another
  /// process's append is seen within about 16 ms, and an idle wait costs about 60 reads a
  /// second.
  public func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration)
    async throws
  {
    let left = clock.countdown(timeout)
    var pause = Duration.milliseconds(1)
    while try await head(of: lane) <= sequence {
      let remaining = left()
      guard remaining > .zero else { return }
      try await clock.sleep(for: min(pause, remaining))
      pause = min(pause * 2, Self.longestPoll)
    }
  }

  public func claimNode(_ node: String, of lane: String) async throws {
    try SharedLogError.check(lane: lane, "claim a node name")
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
    try SharedLogError.check(lane: lane, "save a snapshot of the shared lane")
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
    let body = try await file.reading("read the shared lane's snapshots") { [self] db -> Data? in
      guard try has("sluice_snapshot", db) else { return nil }
      return try Data.fetchOne(db, sql: sql, arguments: StatementArguments(arguments))
    }
    return try body.map { try JSONDecoder().decode(SharedSnapshot.self, from: $0) }
  }

  /// Whether the file has `table` keyed by lane; in read-only mode, throws
  /// ``SQLiteStorageError/Kind/outdatedSchema`` for a file of one lane, which only a read-write
  /// open migrates.
  private func has(_ table: String, _ db: Database) throws -> Bool {
    guard try file.has(table, db) else { return false }
    if file.mode == .readWrite { return true }
    guard try Self.migrator.appliedIdentifiers(db).contains(Self.lanesMigration) else {
      throw SQLiteStorageError(
        .outdatedSchema, path: path, operation: "read the shared log",
        migrations: [Self.lanesMigration])
    }
    return true
  }

  /// A number as SQLite stores it (a signed 64-bit integer).
  private static func column(_ number: UInt64) throws -> Int64 {
    try SQLiteFile.column(number, "use the shared log")
  }
}

extension Clock where Duration == Swift.Duration {
  /// The time left until `timeout` from now on this clock, zero once it passed.
  fileprivate func countdown(_ timeout: Duration) -> @Sendable () -> Duration {
    let deadline = now.advanced(by: timeout)
    return { Swift.max(.zero, self.now.duration(to: deadline)) }
  }
}
