import Foundation
import GRDB
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `SQLiteStorage(path:mode: .readOnly)`: reads what a writer wrote, never writes, and refuses
/// what it cannot use with a clear error.
@Suite struct SQLiteReadOnlyTests {
  @Test func aReadOnlyStorageReadsWhatAWriterWrote() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("shared.sqlite")
    let writer = try SQLiteStorage(path: path)
    try writer.write([sqlRecord("sluice.counter", version: 1, json: #"{"value":7}"#)])
    let kept = try writer.quarantine(Data([1, 2]), of: "sluice.counter", reason: "test")

    let reader = try SQLiteStorage(path: path, mode: .readOnly)
    #expect(reader.mode == .readOnly)
    #expect(try reader.keys() == ["sluice.counter"])
    #expect(try reader.quarantineKeys(of: "sluice.counter") == [kept])
    #expect(sqlCounterStore(.sqlite("counter", in: reader)).state.value == 7)
    // It sees later writes of the writer too.
    try writer.write([sqlRecord("sluice.counter", version: 1, json: #"{"value":8}"#)])
    #expect(sqlCounterStore(.sqlite("counter", in: reader)).state.value == 8)
  }

  @Test func aWriteThroughAReadOnlyStorageThrowsAndChangesNothing() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("read-only.sqlite")
    try SQLiteStorage(path: path).write([
      sqlRecord("sluice.counter", version: 1, json: #"{"value":7}"#)
    ])
    let database = try SQLiteStorage(path: path, mode: .readOnly)

    let write = #expect(throws: SQLiteStorageError.self) {
      try database.write([sqlRecord("sluice.counter", version: 1, json: #"{"value":0}"#)])
    }
    #expect(write?.kind == .readOnly)
    #expect(write?.operation == "write")
    #expect(
      write?.description == "could not write \(path): the storage was opened read-only; "
        + "nothing was written")
    let quarantine = #expect(throws: SQLiteStorageError.self) {
      try database.quarantine(Data(), of: "sluice.counter", reason: "test")
    }
    #expect(quarantine?.kind == .readOnly)

    // A store restores from it; its saves fail and are reported, as any failed save.
    let store = sqlCounterStore(.sqlite("counter", in: database))
    #expect(store.state.value == 7)
    store.dispatch(SqlIncrement())
    await #expect(throws: Sluice.PersistenceError.self) { try await store.persistence?.flush() }
    guard
      case .storage(key: "sluice.counter", operation: _, underlying: let underlying)? =
        store.persistence?.lastError
    else {
      Issue.record(
        "expected a storage error, got \(String(describing: store.persistence?.lastError))")
      return
    }
    #expect((underlying as? SQLiteStorageError)?.kind == .readOnly, "\(underlying)")
    #expect(
      try SQLiteStorage(path: path).read("sluice.counter")?.data == Data(#"{"value":7}"#.utf8))
  }

  /// A read-only open of a file made before the migrator reads it as it is: it does not
  /// record the migrations (nor write anything else).
  @Test func aReadOnlyOpenOfAFileMadeBeforeTheMigratorWritesNothing() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("before-the-migrator.sqlite")
    try sqlMakeFileBeforeTheMigrator(at: path)
    let before = try #require(FileManager.default.contents(atPath: path))

    let database = try SQLiteStorage(path: path, mode: .readOnly)
    #expect(sqlCounterStore(.sqlite("counter", in: database)).state.value == 41)
    #expect(try database.quarantined("sluice.counter.quarantine.1")?.reason == "kept")
    #expect(FileManager.default.contents(atPath: path) == before)
    let hasMigrations = try DatabaseQueue(path: path).read { db in
      try db.tableExists("grdb_migrations")
    }
    #expect(!hasMigrations)
  }

  @Test func aReadOnlyOpenRefusesAFileWithoutTheSchema() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    // A database of another app.
    let other = folder.path("other.sqlite")
    try DatabaseQueue(path: other).write { db in
      try db.execute(sql: "CREATE TABLE notes (text TEXT)")
    }
    let missing = #expect(throws: SQLiteStorageError.self) {
      try SQLiteStorage(path: other, mode: .readOnly)
    }
    #expect(missing?.kind == .missingSchema)
    #expect(missing?.description.contains("has no Sluice tables") == true)

    // A file with the first migration only.
    let older = folder.path("older.sqlite")
    let queue = try DatabaseQueue(path: older)
    try queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1-records');
          CREATE TABLE sluice_records (
            key TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, data BLOB NOT NULL,
            updated_at DOUBLE NOT NULL);
          """)
    }
    try queue.close()
    let outdated = #expect(throws: SQLiteStorageError.self) {
      try SQLiteStorage(path: older, mode: .readOnly)
    }
    #expect(outdated?.kind == .outdatedSchema)
    #expect(outdated?.migrations == ["v1-quarantine"])
    #expect(outdated?.description.contains("open it once in read-write mode") == true)

    // No file: SQLite's "unable to open", and nothing is created.
    let absent = folder.path("absent.sqlite")
    #expect(throws: DatabaseError.self) { try SQLiteStorage(path: absent, mode: .readOnly) }
    #expect(!FileManager.default.fileExists(atPath: absent))
  }

  /// The file and its folder read-only, for the user running the test. Root ignores file
  /// permissions, so under root (as in CI) this test cannot tell anything and is skipped; the
  /// tests above check the read-only mode itself.
  @Test(.enabled(if: geteuid() != 0, "root writes whatever the permissions say"))
  func aReadOnlyOpenWorksWhereNothingCanBeWritten() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("protected.sqlite")
    try SQLiteStorage(path: path).write([
      sqlRecord("sluice.counter", version: 1, json: #"{"value":5}"#)
    ])
    let manager = FileManager.default
    try manager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
    try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
    defer {
      try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
    }

    let database = try SQLiteStorage(path: path, mode: .readOnly)
    #expect(sqlCounterStore(.sqlite("counter", in: database)).state.value == 5)
    #expect(throws: (any Error).self) { try SQLiteStorage(path: path) }

    // Without the `-wal` and `-shm` files that a read-write open keeps, SQLite cannot read
    // the file from there.
    try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
    try manager.removeItem(atPath: path + "-wal")
    try manager.removeItem(atPath: path + "-shm")
    try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
    let error = #expect(throws: SQLiteStorageError.self) {
      try SQLiteStorage(path: path, mode: .readOnly)
    }
    #expect(error?.kind == .missingWALFiles)
  }
}
