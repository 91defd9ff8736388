import Foundation
import GRDB
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

/// The schema through GRDB's `DatabaseMigrator`: a new file records its migrations, a file made
/// before the migrator keeps its records, a file a newer version migrated is refused.
@Suite struct SQLiteSchemaTests {
  @Test func aNewFileHasTheTablesAndRecordsItsMigrations() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("new.sqlite")
    _ = try SQLiteStorage(path: path)
    let queue = try DatabaseQueue(path: path)
    let (migrations, tables) = try queue.read { db in
      (
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
        try ["sluice_records", "sluice_quarantine"].filter { try db.tableExists($0) }
      )
    }
    #expect(migrations == ["v1-records", "v1-quarantine"])
    #expect(tables == ["sluice_records", "sluice_quarantine"])
  }

  /// A file that SluiceSQLite made before the migrator: the tables, created by hand, and no
  /// `grdb_migrations`. Opening it keeps its records and quarantined bytes, and records the
  /// migrations as applied.
  @Test func aFileMadeBeforeTheMigratorKeepsItsRecords() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("before-the-migrator.sqlite")
    try sqlMakeFileBeforeTheMigrator(at: path)

    let database = try SQLiteStorage(path: path)
    let record = try #require(try database.read("sluice.counter"))
    #expect(record.version == 1)
    #expect(String(decoding: record.data, as: UTF8.self) == #"{"value":41}"#)
    #expect(record.updatedAt == Date(timeIntervalSince1970: 1_700_000_000))
    #expect(try database.quarantined("sluice.counter.quarantine.1")?.reason == "kept")
    let store = sqlCounterStore(.sqlite("counter", in: database))
    #expect(store.state.value == 41)

    let migrations = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
    }
    #expect(migrations == ["v1-records", "v1-quarantine"])
    // And the tables take writes as before.
    store.dispatch(SqlIncrement())
    try database.write([sqlRecord("sluice.other", version: 1, json: "{}")])
    #expect(try database.keys() == ["sluice.counter", "sluice.other"])
  }

  @Test func aFileThatANewerVersionMigratedIsRefusedAndLeftUntouched() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("newer.sqlite")
    do {
      let database = try SQLiteStorage(path: path)
      try database.write([sqlRecord("sluice.counter", version: 1, json: #"{"value":3}"#)])
    }
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
    }
    let before = try queue.read(Self.contents)
    try queue.close()

    for mode in [SQLiteStorage.Mode.readWrite, .readOnly] {
      let error = #expect(throws: SQLiteStorageError.self, "\(mode)") {
        try SQLiteStorage(path: path, mode: mode)
      }
      #expect(error?.kind == .newerSchema)
      #expect(error?.migrations == ["v9-from-the-future"])
      #expect(error?.description.contains("schema and records were left as they are") == true)
    }
    #expect(try DatabaseQueue(path: path).read(Self.contents) == before)
  }

  /// The schema, migrations and records of a file.
  static func contents(_ db: Database) throws -> [String] {
    try String.fetchAll(
      db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
      + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
      + String.fetchAll(
        db, sql: "SELECT key || version || hex(data) || updated_at FROM sluice_records")
  }

  /// The durability the documentation promises: GRDB turns WAL mode on with
  /// `synchronous = NORMAL`; the storage sets FULL on the connection that writes.
  @Test func theWriterRunsInWALModeAndSyncsEachCommit() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("durable.sqlite"))
    #expect(try database.pragma("journal_mode") == "wal")
    #expect(try database.pragma("synchronous") == "2")  // FULL
  }
}

/// Makes the file that SluiceSQLite made before its schema went through GRDB's migrator: the
/// tables created by hand, without `grdb_migrations`, in WAL mode, holding the record
/// `sluice.counter` (`{"value":41}`) and the quarantined bytes `sluice.counter.quarantine.1`.
func sqlMakeFileBeforeTheMigrator(at path: String) throws {
  let pool = try DatabasePool(path: path)
  try pool.write { db in
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS sluice_records (
          key TEXT PRIMARY KEY NOT NULL,
          version INTEGER NOT NULL,
          data BLOB NOT NULL,
          updated_at DOUBLE NOT NULL
        );
        CREATE TABLE IF NOT EXISTS sluice_quarantine (
          key TEXT PRIMARY KEY NOT NULL,
          original_key TEXT NOT NULL,
          data BLOB NOT NULL,
          reason TEXT NOT NULL,
          quarantined_at DOUBLE NOT NULL
        );
        INSERT INTO sluice_records (key, version, data, updated_at)
        VALUES ('sluice.counter', 1, CAST('{"value":41}' AS BLOB), 1700000000);
        INSERT INTO sluice_quarantine (key, original_key, data, reason, quarantined_at)
        VALUES ('sluice.counter.quarantine.1', 'sluice.counter', X'00', 'kept', 1700000000);
        """)
  }
  try pool.close()
}
