import Foundation
import PostgresNIO
import Sluice

/// The shared lane's snapshots, in the table `sluice_snapshot` next to the log: a node that
/// starts restores the newest one, and nodes compare their states' hashes with the one saved
/// after an entry.
///
/// Each snapshot is one row, its number, its hash and its body (the ``SharedSnapshot`` as JSON,
/// the body SQLite's engine keeps too); saving and reading are one statement, one round trip,
/// each. A database whose snapshot table is missing (made by an earlier engine, opened by a role
/// that may not create tables) reads as one without snapshots.
extension PostgresLogEngine {
  /// The snapshot with the highest sequence number, if any.
  ///
  /// ```swift
  /// if let snapshot = try await log.latestSnapshot(of: "orders") {
  ///   print("states after entry \(snapshot.sequence), hash \(snapshot.hash)")
  /// }
  /// ```
  ///
  /// - Parameter lane: The lane's name.
  /// - Returns: The newest snapshot of `lane`, or `nil` when none was saved.
  /// - Throws: ``PostgresLogError`` when the server cannot be reached or does not answer in
  ///   time, or (``PostgresLogError/Kind/unexpectedResponse``) when the saved body is not a
  ///   snapshot.
  /// - Complexity: One round trip to the server.
  public func latestSnapshot(of lane: String) async throws -> SharedSnapshot? {
    try SharedLaneError.check(lane: lane, Self.reading)
    return try await readSnapshot(LogSchema.latestSnapshot(of: lane))
  }

  /// The snapshot after entry `sequence`, if one was saved.
  ///
  /// - Parameters:
  ///   - lane: The lane's name.
  ///   - sequence: The entry the snapshot's states follow.
  /// - Returns: The snapshot saved at `sequence`, or `nil`.
  /// - Throws: ``PostgresLogError`` when the server cannot be reached or does not answer in
  ///   time, or `SharedLaneError` for a `sequence` larger than `Int64.max`.
  /// - Complexity: One round trip to the server.
  public func snapshot(of lane: String, at sequence: UInt64) async throws -> SharedSnapshot? {
    try SharedLaneError.check(lane: lane, Self.reading)
    return try await readSnapshot(LogSchema.snapshot(of: lane, at: try Self.column(sequence)))
  }

  /// Saves `snapshot`, unless one is saved at its sequence already: the first one stays, so
  /// that a node whose states differ sees the difference instead of overwriting it.
  ///
  /// Saving the same snapshot again (a retry after a lost answer) changes nothing.
  ///
  /// - Parameters:
  ///   - snapshot: The states after an entry, with their hash.
  ///   - lane: The lane's name.
  /// - Throws: ``PostgresLogError`` when the server cannot be reached, does not answer in time,
  ///   or has no snapshot table it lets the engine write, or `SharedLaneError` for a sequence
  ///   larger than `Int64.max`; nothing is saved then.
  /// - Complexity: One round trip to the server.
  public func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws {
    try SharedLaneError.check(lane: lane, "save a snapshot of the shared lane")
    let query = LogSchema.saveSnapshot(
      to: lane, sequence: try Self.column(snapshot.sequence),
      hash: Int64(bitPattern: snapshot.hash),
      body: ByteBuffer(bytes: try JSONEncoder().encode(snapshot)))
    try await run("save a snapshot of the shared lane") { connection -> Void in
      try await connection.query(query, logger: self.configuration.logger)
    }
  }

  /// The snapshot in the first row `query` returns, if any.
  private func readSnapshot(_ query: PostgresQuery) async throws -> SharedSnapshot? {
    let operation = Self.reading
    let body: Data?
    do {
      body = try await run(operation) { connection in
        var body: Data?
        for try await row in try await connection.query(query, logger: self.configuration.logger) {
          body = try row.decode(Data.self)
        }
        return body
      }
    } catch let error as PostgresLogError where error.sqlState == Self.undefinedTable {
      return nil
    }
    guard let body else { return nil }
    do {
      return try JSONDecoder().decode(SharedSnapshot.self, from: body)
    } catch {
      throw unexpected(operation, "a saved snapshot does not decode: \(error)")
    }
  }

  /// What reading a snapshot is called in errors.
  private static var reading: String { "read the shared lane's snapshots" }

  /// The SQLSTATE of a statement on a table that does not exist.
  private static var undefinedTable: String { "42P01" }
}
