import Foundation
import Sluice

/// Why an ``SQLiteStorage`` refused to open its file, or to write to it; ``SQLiteLogEngine``
/// and ``SQLiteOutboxStore`` throw it for the same causes.
///
/// Other failures (a missing folder, a file that is not a database, a damaged page) are GRDB's
/// `DatabaseError`, as SQLite reports them. `SQLiteStorageError` covers what is particular to
/// Sluice's use of the file: another connection that holds it for longer than the busy
/// timeout, a write through a read-only storage, and a schema this version cannot use. When a
/// store's save fails with one of them, the store reports it on its `errors` channel, inside a
/// `PersistenceError.storage(key:operation:underlying:)`.
///
/// ```swift
/// do {
///   let database = try SQLiteStorage(path: path, busyTimeout: .seconds(1))
///   try database.write(records)
/// } catch let error as SQLiteStorageError where error.kind == .busy {
///   print("another process holds \(path): \(error)")  // try again later
/// }
/// ```
public struct SQLiteStorageError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  ///
  /// Each kind says what to do about it: wait and try again (``busy``), open the file in
  /// read-write mode once (``missingSchema``, ``outdatedSchema``, ``missingWALFiles``), or
  /// update the app (``newerSchema``).
  ///
  /// ```swift
  /// if error.kind == .readOnly { /* a read-only storage does not write */ }
  /// ```
  public enum Kind: Sendable, Hashable {
    /// Another connection (of this process or another) held the database for longer than the
    /// storage's busy timeout. Nothing was written.
    case busy
    /// A write or a quarantine through a storage opened with ``SQLiteStorage/Mode/readOnly``.
    /// Nothing was written.
    case readOnly
    /// A read-only storage found no Sluice tables in the file (an empty file, or a database
    /// of another app), and does not create them.
    case missingSchema
    /// A read-only storage found a schema that lacks migrations this version needs, and does
    /// not apply them; the description names them.
    case outdatedSchema
    /// The file was migrated by a newer version of SluiceSQLite (it has migrations this
    /// version does not know, named by the description). Its schema and
    /// records were left as they are.
    case newerSchema
    /// A read-only storage cannot read the file: its folder cannot be written, and the
    /// database's `-wal` and `-shm` files, which SQLite needs beside a database in WAL mode,
    /// are missing. A storage opened in read-write mode keeps them from then on.
    case missingWALFiles
  }

  /// What went wrong.
  public let kind: Kind
  /// The database file (in the description).
  let path: String?
  /// What the storage was doing: `"open"`, `"read"`, `"write"` or `"quarantine"` (in the
  /// description).
  let operation: String
  /// The migrations concerned: the missing ones (``Kind/outdatedSchema``), or the unknown
  /// ones (``Kind/newerSchema``); empty for the other kinds (in the description).
  let migrations: [String]
  /// How long the storage waited, for ``Kind/busy``.
  public let busyTimeout: Duration?
  /// The SQLite error behind this one (GRDB's `DatabaseError`), when there is one.
  public let underlying: (any Error)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - kind: What went wrong.
  ///   - path: The database file, or `nil` for an in-memory database.
  ///   - operation: What the storage was doing: `"open"`, `"read"`, `"write"` or
  ///     `"quarantine"`.
  ///   - migrations: The missing or unknown migrations, for the schema kinds.
  ///   - busyTimeout: How long the storage waited, for ``Kind/busy``.
  ///   - underlying: The SQLite error behind this one.
  init(
    _ kind: Kind, path: String?, operation: String, migrations: [String] = [],
    busyTimeout: Duration? = nil, underlying: (any Error)? = nil
  ) {
    self.kind = kind
    self.path = path
    self.operation = operation
    self.migrations = migrations
    self.busyTimeout = busyTimeout
    self.underlying = underlying
  }

  /// What went wrong and what to do about it, in one sentence.
  public var description: String {
    let file = path ?? "the in-memory database"
    let list = migrations.map { "'\($0)'" }.joined(separator: ", ")
    switch kind {
    case .busy:
      let waited = busyTimeout.map { " (\($0.inSeconds) s)" } ?? ""
      return
        "could not \(operation) \(file): another connection held the database for longer "
        + "than the busy timeout\(waited); nothing was written"
        + (underlying.map { " (\($0))" } ?? "")
    case .readOnly:
      return
        "could not \(operation) \(file): the storage was opened read-only; nothing was written"
    case .missingSchema:
      return
        "could not \(operation) \(file) read-only: it has no Sluice tables, and a read-only "
        + "storage does not create them"
    case .outdatedSchema:
      return
        "could not \(operation) \(file) read-only: its schema lacks the migrations \(list), "
        + "and a read-only storage does not apply them; open it once in read-write mode"
    case .newerSchema:
      return
        "could not \(operation) \(file): a newer version of SluiceSQLite migrated it (unknown "
        + "migrations \(list)); its schema and records were left as they are"
    case .missingWALFiles:
      return
        "could not \(operation) \(file) read-only: its folder cannot be written and the "
        + "database's -wal and -shm files are missing; open it once in read-write mode, which "
        + "keeps them from then on"
    }
  }
}

extension Duration {
  /// The duration in seconds, as SQLite's busy handler and messages take it.
  var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

extension SQLiteStorageError: LastingFailure {
  /// Only a busy file may be free at the next try; the other kinds need the file or the app
  /// changed.
  package var isLasting: Bool { kind != .busy }
}
