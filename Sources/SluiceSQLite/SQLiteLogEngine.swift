import Foundation
import GRDB
import Sluice

/// A shared log in an SQLite file: the processes of one machine that open the same file share
/// one lane's order through it.
///
/// Appends run in `BEGIN IMMEDIATE` transactions, so they serialize across processes, and are
/// durable when they return (`synchronous = FULL`: an fsync per append). Each batch takes the
/// numbers right after the last entry, with no gap, and a record whose origin and origin
/// sequence are already in the log keeps its number (the `UNIQUE` constraint on the pair backs
/// this up). The file is in WAL mode, so readers never wait for the appender. A
/// process that finds the file locked longer than `busyTimeout` gets ``SQLiteStorageError``
/// with kind ``SQLiteStorageError/Kind/busy``, and nothing is appended.
public final class SQLiteLogEngine: SharedSnapshotEngine {
  // Sendable: immutable.
  private let file: SQLiteFile
  /// What the polling of ``waitForEntries(after:timeout:)`` waits on.
  private let clock: any Clock<Duration>

  /// The database file.
  public var path: String { file.path }

  /// The longest pause between two looks at the log in ``waitForEntries(after:timeout:)``.
  static var longestPoll: Duration { .milliseconds(16) }

  /// Opens the log in the SQLite file at `path`: in read-write mode, creating the file and its
  /// tables when needed; in read-only mode (``SQLiteStorage/Mode/readOnly``), writing nothing
  /// (a file without the log's tables reads as an empty log, and appends throw
  /// ``SQLiteStorageError/Kind/readOnly``).
  ///
  /// - Parameters:
  ///   - path: The database file.
  ///   - mode: Read-write (the default) or read-only.
  ///   - busyTimeout: How long an open or an append waits for a file another process holds.
  ///   - clock: What the pauses and the timeout of ``waitForEntries(after:timeout:)`` are
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
    return migrator
  }()

  public func append(_ records: [SharedLogRecord]) async throws -> [UInt64] {
    guard !records.isEmpty else { return [] }
    return try await file.writing("append to the shared log") { db in
      var numbers: [UInt64] = []
      numbers.reserveCapacity(records.count)
      try db.inTransaction(.immediate) {
        var head = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM sluice_log") ?? 0
        for record in records {
          let originSequence = try Self.column(record.originSequence)
          let lookup = try db.cachedStatement(
            sql: "SELECT sequence FROM sluice_log WHERE origin = ? AND origin_sequence = ?")
          if let existing = try Int64.fetchOne(lookup, arguments: [record.origin, originSequence]) {
            numbers.append(UInt64(existing))
            continue
          }
          head += 1
          try db.cachedStatement(
            sql: """
              INSERT INTO sluice_log (sequence, origin, origin_sequence, name, payload)
              VALUES (?, ?, ?, ?, ?)
              """
          ).execute(
            arguments: [head, record.origin, originSequence, record.name, record.payload])
          numbers.append(UInt64(head))
        }
        return .commit
      }
      return numbers
    }
  }

  public func entries(after sequence: UInt64, limit: Int) async throws -> [SharedLogEntry] {
    guard limit > 0 else { return [] }
    let start = try Self.column(sequence)
    return try await file.reading("read the shared log") { [self] db in
      guard try file.has("sluice_log", db) else { return [] }
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT sequence, origin, origin_sequence, name, payload FROM sluice_log
          WHERE sequence > ? ORDER BY sequence LIMIT ?
          """,
        arguments: [start, limit])
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

  public func head() async throws -> UInt64 {
    try await file.reading("read the shared log") { [self] db in
      guard try file.has("sluice_log", db) else { return 0 }
      return UInt64(try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM sluice_log") ?? 0)
    }
  }

  /// Looks at the log's head, pausing 1 ms, then twice as long each time up to 16 ms: another
  /// process's append is seen within about 16 ms, and an idle wait costs about 60 reads a
  /// second.
  public func waitForEntries(after sequence: UInt64, timeout: Duration) async throws {
    let left = clock.countdown(timeout)
    var pause = Duration.milliseconds(1)
    while try await head() <= sequence {
      let remaining = left()
      guard remaining > .zero else { return }
      try await clock.sleep(for: min(pause, remaining))
      pause = min(pause * 2, Self.longestPoll)
    }
  }

  public func latestSnapshot() async throws -> SharedSnapshot? {
    try await readSnapshot("SELECT body FROM sluice_snapshot ORDER BY sequence DESC LIMIT 1", [])
  }

  public func snapshot(at sequence: UInt64) async throws -> SharedSnapshot? {
    try await readSnapshot(
      "SELECT body FROM sluice_snapshot WHERE sequence = ?", [try Self.column(sequence)])
  }

  public func saveSnapshot(_ snapshot: SharedSnapshot) async throws {
    let body = try JSONEncoder().encode(snapshot)
    let sequence = try Self.column(snapshot.sequence)
    let hash = Int64(bitPattern: snapshot.hash)
    try await file.writing("save a snapshot of the shared lane") { db in
      // The first snapshot after an entry stays: another node compares its hash with it.
      try db.execute(
        sql: "INSERT OR IGNORE INTO sluice_snapshot (sequence, hash, body) VALUES (?, ?, ?)",
        arguments: [sequence, hash, body])
    }
  }

  private func readSnapshot(_ sql: String, _ arguments: [Int64]) async throws -> SharedSnapshot? {
    let body = try await file.reading("read the shared lane's snapshots") { [self] db -> Data? in
      guard try file.has("sluice_snapshot", db) else { return nil }
      return try Data.fetchOne(db, sql: sql, arguments: StatementArguments(arguments))
    }
    return try body.map { try JSONDecoder().decode(SharedSnapshot.self, from: $0) }
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
