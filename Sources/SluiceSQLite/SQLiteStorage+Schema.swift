import GRDB

// The schema, as GRDB migrations (https://github.com/groue/GRDB.swift, "Migrations").
//
// A read-write open applies the migrations the file has not recorded yet, in order, and
// records them in GRDB's `grdb_migrations` table; a read-only open only checks that they were
// all applied. A migration is never changed once shipped: a new schema is a new migration.
// `eraseDatabaseOnSchemaChange` stays off: it would delete the records of every user whose
// file a changed migration made.

extension SQLiteStorage {
  /// The migrations of the schema, in order.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    // Files made before the migrator have both tables and no `grdb_migrations` table:
    // `.ifNotExists` adopts their tables, rows included, and the migrator records the
    // migrations as applied.
    migrator.registerMigration("v1-records") { db in
      try db.create(table: "sluice_records", options: .ifNotExists) { table in
        table.primaryKey("key", .text)
        table.column("version", .integer).notNull()
        table.column("data", .blob).notNull()
        table.column("updated_at", .double).notNull()
      }
    }
    migrator.registerMigration("v1-quarantine") { db in
      try db.create(table: "sluice_quarantine", options: .ifNotExists) { table in
        table.primaryKey("key", .text)
        table.column("original_key", .text).notNull()
        table.column("data", .blob).notNull()
        table.column("reason", .text).notNull()
        table.column("quarantined_at", .double).notNull()
      }
    }
    return migrator
  }()

  /// The table each migration of the first schema creates: in a file made before the migrator
  /// (no `grdb_migrations` table), a migration whose table exists counts as applied.
  private static let tablesBeforeTheMigrator = [
    ("v1-records", "sluice_records"), ("v1-quarantine", "sluice_quarantine"),
  ]

  /// Applies the migrations `writer`'s file has not recorded yet; refuses, leaving it
  /// untouched, a file that a newer version migrated.
  static func migrate(_ writer: any DatabaseWriter, path: String?) throws {
    let unknown = try writer.read(unknownMigrations)
    guard unknown.isEmpty else {
      throw SQLiteStorageError(.newerSchema, path: path, operation: "open", migrations: unknown)
    }
    try migrateRacing(migrator, writer)
  }

  /// Applies `migrator`'s migrations to `writer`'s file, when other processes may be applying
  /// them at the same moment.
  ///
  /// GRDB's migrator reads which migrations a file has before it takes the write lock: of two
  /// processes opening a new file at once, the second finds the tables made ("table … already
  /// exists") or the migration recorded (a `UNIQUE` constraint of `grdb_migrations`). It then
  /// tries again, and finds nothing left to do.
  static func migrateRacing(_ migrator: DatabaseMigrator, _ writer: any DatabaseWriter) throws {
    var attempt = 1
    while true {
      do {
        return try migrator.migrate(writer)
      } catch let error as DatabaseError
        where attempt < 3
        && (error.resultCode == .SQLITE_ERROR || error.resultCode == .SQLITE_CONSTRAINT)
      {
        attempt += 1
      }
    }
  }

  /// Throws unless every migration was applied to the file (or, in a file made before the
  /// migrator, its table exists), and no unknown one.
  static func checkSchema(_ db: Database, path: String?) throws {
    let unknown = try unknownMigrations(db)
    guard unknown.isEmpty else {
      throw SQLiteStorageError(.newerSchema, path: path, operation: "open", migrations: unknown)
    }
    if try migrator.hasCompletedMigrations(db) { return }
    var applied = try migrator.appliedIdentifiers(db)
    if try !db.tableExists("grdb_migrations") {
      for (identifier, table) in tablesBeforeTheMigrator {
        if try db.tableExists(table) { applied.insert(identifier) }
      }
    }
    let missing = migrator.migrations.filter { !applied.contains($0) }
    guard !missing.isEmpty else { return }
    throw SQLiteStorageError(
      missing.count == migrator.migrations.count ? .missingSchema : .outdatedSchema,
      path: path, operation: "open", migrations: missing)
  }

  /// The migrations recorded in the file that this version does not know, sorted. The shared
  /// log's (``SQLiteLogEngine``) and the outbox's (``SQLiteOutboxStore``) are known: they may
  /// share the file.
  private static func unknownMigrations(_ db: Database) throws -> [String] {
    try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
      .subtracting(SQLiteLogEngine.migrator.migrations)
      .subtracting(SQLiteOutboxStore.migrator.migrations).sorted()
  }
}
