import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

@Suite struct SQLiteMigrationTests {
  @Test func aVersion1RecordIsMigratedToVersion2OnRestore() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("migrate.sqlite")
    do {
      // What version 1 of the app wrote.
      let database = try SQLiteStorage(path: path)
      try database.write([sqlRecord("sluice.note", version: 1, json: #"{"name":"Groceries"}"#)])
    }
    let database = try SQLiteStorage(path: path)
    let store = Store(
      initialState: SqlNoteV2(), reducer: sqlNoteV2Reducer,
      persistence: .sqlite("note", in: database).version(2, migrations: sqlNoteMigrations))
    #expect(store.state == SqlNoteV2(title: "Groceries", pinned: false))
    guard case .migrated(from: 1, to: 2) = store.persistence?.restoreOutcome else {
      Issue.record(
        "expected migrated(1 → 2), got \(sqlOutcome(store))")
      return
    }
    #expect(store.errors.recent.isEmpty)
    // Restoring does not rewrite the record: it stays version 1 until the state changes.
    #expect(try database.read("sluice.note")?.version == 1)
    store.dispatch(SqlPin())
    try await store.persistence?.flush()
    let record = try #require(try database.read("sluice.note"))
    #expect(record.version == 2)
    #expect(
      try sqlStoredJSON(database, "sluice.note") == ["title": "Groceries", "pinned": true])

    // The next launch reads version 2 without migrating.
    let again = Store(
      initialState: SqlNoteV2(), reducer: sqlNoteV2Reducer,
      persistence: .sqlite("note", in: database).version(2, migrations: sqlNoteMigrations))
    #expect(again.state == SqlNoteV2(title: "Groceries", pinned: true))
    guard case .restored(version: 2) = again.persistence?.restoreOutcome else {
      Issue.record("expected restored(version: 2)")
      return
    }
  }

  @Test func migrationsChainFromVersion1AndFromVersion2ToVersion3() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("chain.sqlite"))
    try database.write([
      sqlRecord("sluice.old", version: 1, json: #"{"name":"from one"}"#),
      sqlRecord("sluice.mid", version: 2, json: #"{"title":"from two","pinned":true}"#),
    ])
    let old = Store(
      initialState: SqlNoteV3(),
      persistence: .sqlite("old", in: database).version(3, migrations: sqlNoteMigrations))
    let mid = Store(
      initialState: SqlNoteV3(),
      persistence: .sqlite("mid", in: database).version(3, migrations: sqlNoteMigrations))
    #expect(old.state == SqlNoteV3(title: "from one", pinned: false, tags: ["migrated"]))
    #expect(mid.state == SqlNoteV3(title: "from two", pinned: true, tags: ["migrated"]))
    guard case .migrated(from: 1, to: 3) = old.persistence?.restoreOutcome,
      case .migrated(from: 2, to: 3) = mid.persistence?.restoreOutcome
    else {
      Issue.record("expected migrated(1 → 3) and migrated(2 → 3)")
      return
    }
  }

  @Test func aNewerRecordIsRefusedAndLeftUntouched() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("newer.sqlite")
    let written = Date(timeIntervalSince1970: 1_700_000_000)
    let bytes = Data(#"{"title":"from the future","pinned":true,"tags":["v3"]}"#.utf8)
    do {
      let database = try SQLiteStorage(path: path)
      try database.write([
        PersistedRecord(key: "sluice.note", version: 3, data: bytes, updatedAt: written)
      ])
    }
    do {
      let database = try SQLiteStorage(path: path)
      let store = Store(
        initialState: SqlNoteV2(title: "initial"), reducer: sqlNoteV2Reducer,
        persistence: .sqlite("note", in: database).version(2, migrations: sqlNoteMigrations))
      #expect(store.state == SqlNoteV2(title: "initial"))
      guard case .refused(let refusal) = store.persistence?.restoreOutcome,
        case .newerVersion(key: "sluice.note", stored: 3, supported: 2) = refusal
      else {
        Issue.record("expected refused(newerVersion 3 > 2)")
        return
      }
      let reported = sqlPersistenceErrors(store)
      #expect(reported.count == 1)
      if case .newerVersion(key: "sluice.note", stored: 3, supported: 2)? = reported.first {
      } else {
        Issue.record("the refusal must be reported on store.errors: \(reported)")
      }
      #expect(store.errors.last?.source == .persistence("sluice.note"))
      #expect("\(refusal)".contains("left untouched"))
      #expect(store.persistence?.isEnabled == false)

      // Changes, flushes, saves, switching it on: nothing overwrites the newer record.
      store.dispatch(SqlPin())
      try await store.persistence?.flush()
      try await store.persistence?.saveNow()
      store.persistence?.isEnabled = true
      #expect(store.persistence?.isEnabled == false)
      store.dispatch(SqlPin())
      try await store.persistence?.flush()
      #expect(store.persistence?.writeCount == 0)
    }
    // The store was released (which writes what is pending): still untouched.
    let database = try SQLiteStorage(path: path)
    let record = try #require(try database.read("sluice.note"))
    #expect(record.version == 3)
    #expect(record.data == bytes)
    #expect(record.updatedAt == written)

    // The newer code reads it as it was written.
    let newer = Store(
      initialState: SqlNoteV3(),
      persistence: .sqlite("note", in: database).version(3, migrations: sqlNoteMigrations))
    #expect(newer.state == SqlNoteV3(title: "from the future", pinned: true, tags: ["v3"]))
  }

  @Test func aMissingMigrationStepDiscardsAndQuarantines() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("missing-step.sqlite"))
    let bytes = Data(#"{"name":"old"}"#.utf8)
    try database.write([
      PersistedRecord(key: "sluice.note", version: 1, data: bytes, updatedAt: Date())
    ])
    let onlyFrom2: [Int: PersistenceMigration] = [2: { state in state["tags"] = [] }]
    let store = Store(
      initialState: SqlNoteV3(title: "initial"),
      persistence: .sqlite("note", in: database).version(3, migrations: onlyFrom2))
    #expect(store.state == SqlNoteV3(title: "initial"))
    guard case .discarded(let error, let quarantineKey?) = store.persistence?.restoreOutcome,
      case .missingMigration(key: "sluice.note", from: 1, to: 2) = error
    else {
      Issue.record("expected discarded(missingMigration 1 → 2) with a quarantine key")
      return
    }
    #expect(try database.quarantined(quarantineKey)?.data == bytes)
    #expect(sqlPersistenceErrors(store).count == 1)
  }

  @Test func aThrowingMigrationDiscardsAndQuarantines() throws {
    struct Refusal: Error {}
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("throwing-step.sqlite"))
    let bytes = Data(#"{"name":"old"}"#.utf8)
    try database.write([
      PersistedRecord(key: "sluice.note", version: 1, data: bytes, updatedAt: Date())
    ])
    let throwing: [Int: PersistenceMigration] = [1: { _ in throw Refusal() }]
    let store = Store(
      initialState: SqlNoteV2(title: "initial"),
      persistence: .sqlite("note", in: database).version(2, migrations: throwing))
    #expect(store.state == SqlNoteV2(title: "initial"))
    guard case .discarded(let error, let quarantineKey?) = store.persistence?.restoreOutcome,
      case .migrationFailed(key: "sluice.note", from: 1, underlying: let underlying) = error
    else {
      Issue.record("expected discarded(migrationFailed) with a quarantine key")
      return
    }
    #expect(underlying is Refusal)
    let kept = try #require(try database.quarantined(quarantineKey))
    #expect(kept.data == bytes)
    #expect(kept.reason.contains("migration"))
  }
}
