import Foundation
import GRDB
import Sluice

/// An SQLite file that a part of a shared lane opens with migrations of its own (the log, the
/// outbox), every call running on a thread of its own under the busy wait.
final class SQLiteFile: Sendable {
  // Sendable: immutable; GRDB's `DatabasePool` is Sendable.
  let path: String
  let mode: SQLiteStorage.Mode
  private let pool: DatabasePool
  private let busyTimeout: Duration
  /// Where every operation runs: SQLite blocks while another process holds the write lock, and
  /// that must not block a thread of the concurrency pool.
  private let worker: BlockingWorker

  /// Opens the file at `path`; in read-write mode, creates it and applies `migrator`, with
  /// `synchronous = FULL` so that a write that returned survives a power loss.
  ///
  /// - Throws: ``SQLiteStorageError`` (``SQLiteStorageError/Kind/busy``) when another process
  ///   holds the file for longer than `busyTimeout`, or GRDB's `DatabaseError` when the file
  ///   cannot be opened.
  init(
    path: String, mode: SQLiteStorage.Mode, busyTimeout: Duration, migrator: DatabaseMigrator,
    purpose: String, thread: String
  ) throws {
    self.path = path
    self.mode = mode
    self.busyTimeout = busyTimeout
    let pool = try DatabasePool(
      path: path, configuration: SQLiteStorage.configuration(mode, busyTimeout: busyTimeout))
    if mode == .readWrite {
      try SQLiteStorage.waiting(purpose, path, busyTimeout) {
        try SQLiteStorage.synchronousFull(pool)
        try SQLiteStorage.migrateRacing(migrator, pool)
      }
    }
    self.pool = pool
    worker = BlockingWorker(name: thread)
  }

  /// Reads in a transaction of its own, on the file's thread.
  func reading<T: Sendable>(
    _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try await worker.run { [self] in
      try SQLiteStorage.waiting(operation, path, busyTimeout) { try pool.read(body) }
    }
  }

  /// Reads in a transaction of its own, on the calling thread (a thread of its own, which may
  /// block).
  func readHere<T>(_ body: (Database) throws -> T) throws -> T {
    try SQLiteStorage.waiting("read the shared log", path, busyTimeout) { try pool.read(body) }
  }

  /// Writes on the file's thread; `body` opens its own transaction.
  ///
  /// - Throws: ``SQLiteStorageError/Kind/readOnly`` in read-only mode.
  func writing<T: Sendable>(
    _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    guard mode == .readWrite else {
      throw SQLiteStorageError(.readOnly, path: path, operation: operation)
    }
    return try await worker.run { [self] in
      try SQLiteStorage.waiting(operation, path, busyTimeout) {
        try pool.writeWithoutTransaction(body)
      }
    }
  }

  /// A number as SQLite stores it (a signed 64-bit integer).
  static func column(_ number: UInt64, _ operation: String) throws -> Int64 {
    guard let value = Int64(exactly: number) else {
      throw SharedLaneError(.numberOutOfRange(number), operation: operation)
    }
    return value
  }
}

extension Row {
  /// The value of `column` as the file stores it, NULL for a missing column: reading it never
  /// converts, so it never traps.
  func stored(_ column: String) -> DatabaseValue {
    (try? decode(DatabaseValue.self, forColumn: column)) ?? .null
  }

  /// The non-negative integer in `column`; nil for a NULL, another type or a negative number.
  func count(_ column: String) -> UInt64? {
    guard case .int64(let value) = stored(column).storage, value >= 0 else { return nil }
    return UInt64(value)
  }

  /// The record in the columns `origin`, `origin_sequence`, `name` and `payload`, of a row this
  /// module may not have written.
  ///
  /// - Throws: `failure` of the first column that holds a NULL, another type or a negative
  ///   number.
  func record(_ failure: (String) -> any Error) throws -> SharedLogRecord {
    guard case .string(let origin) = stored("origin").storage else { throw failure("origin") }
    guard let originSequence = count("origin_sequence") else {
      throw failure("origin_sequence")
    }
    guard case .string(let name) = stored("name").storage else { throw failure("name") }
    guard case .blob(let payload) = stored("payload").storage else { throw failure("payload") }
    return SharedLogRecord(
      origin: origin, originSequence: originSequence, name: name, payload: payload)
  }

  /// Why `column` does not decode, in words.
  func problem(_ column: String) -> String {
    "its column \(column) holds \(stored(column)), which this version never writes there"
  }
}
