import Foundation
import GRDB  // Only to write rows SQLiteStorage never writes (a damaged or foreign table).
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

@Suite struct SQLiteBadDataTests {
  // MARK: - Records that are not the state

  @Test func dataThatIsNotJSONIsQuarantinedAndTheStoreStartsFresh() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("not-json.sqlite")
    let bytes = Data("this is not JSON {".utf8)
    let database = try SQLiteStorage(path: path)
    try database.write([
      PersistedRecord(key: "sluice.counter", version: 1, data: bytes, updatedAt: Date())
    ])
    let store = Store(
      initialState: SqlCounter(value: -1), reducer: sqlCounterReducer,
      persistence: .sqlite("counter", in: database))
    #expect(store.state == SqlCounter(value: -1))
    guard case .discarded(let error, let quarantineKey?) = store.persistence?.restoreOutcome,
      case .corrupt(key: "sluice.counter", bytes: bytes, reason: _) = error
    else {
      Issue.record(
        "expected discarded(corrupt), got \(sqlOutcome(store))")
      return
    }
    #expect(quarantineKey.hasPrefix("sluice.counter.quarantine."))
    let kept = try #require(try database.quarantined(quarantineKey))
    #expect(kept.data == bytes)
    #expect(kept.reason.contains("not JSON"))
    // Observable: on store.errors, from the persistence of the key, and as lastError.
    let reported = try #require(store.errors.last)
    #expect(reported.source == .persistence("sluice.counter"))
    if case .corrupt(key: "sluice.counter", bytes: _, reason: _)? = reported.error
      as? Sluice.PersistenceError
    {
    } else {
      Issue.record("store.errors must carry the corrupt error: \(reported)")
    }
    if case .corrupt? = store.persistence?.lastError {
    } else {
      Issue.record("lastError must be the corrupt error")
    }

    // The store goes on saving under its key; the quarantined bytes stay.
    store.dispatch(SqlIncrement())
    try await store.persistence?.flush()
    let record = try #require(try database.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: record.data) == SqlCounter(value: 0))
    #expect(try database.quarantined(quarantineKey)?.data == bytes)
    #expect(try database.keys() == ["sluice.counter"], "quarantined bytes live in their own table")
  }

  @Test(arguments: [
    #"{"count":3}"#,  // A renamed property, without a migration.
    #"{"value":"seven"}"#,  // A changed type.
    #"[1,2,3]"#,  // Not an object.
    "null",
  ])
  func jsonThatNoLongerDecodesIsQuarantined(json: String) throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("schema.sqlite"))
    try database.write([sqlRecord("sluice.counter", version: 1, json: json)])
    let store = Store(
      initialState: SqlCounter(value: 5), reducer: sqlCounterReducer,
      persistence: .sqlite("counter", in: database))
    #expect(store.state == SqlCounter(value: 5))
    guard case .discarded(let error, let quarantineKey?) = store.persistence?.restoreOutcome,
      case .undecodable(key: "sluice.counter", version: 1, underlying: _) = error
    else {
      Issue.record(
        "expected discarded(undecodable), got \(sqlOutcome(store))"
      )
      return
    }
    #expect(try database.quarantined(quarantineKey)?.data == Data(json.utf8))
    #expect(sqlPersistenceErrors(store).count == 1)
    #expect(store.errors.last?.source == .persistence("sluice.counter"))
  }

  @Test func emptyDataIsQuarantined() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("empty.sqlite"))
    try database.write([
      PersistedRecord(key: "sluice.counter", version: 1, data: Data(), updatedAt: Date())
    ])
    let store = sqlCounterStore(.sqlite("counter", in: database))
    guard case .discarded(.corrupt, let quarantineKey?) = store.persistence?.restoreOutcome else {
      Issue.record("expected discarded(corrupt)")
      return
    }
    #expect(try database.quarantined(quarantineKey)?.data == Data())
  }

  @Test func eachDiscardKeepsItsOwnCopyAndNothingIsOverwritten() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("twice.sqlite"))
    let bytes = Data(#"{"value":"not a number"}"#.utf8)
    try database.write([
      PersistedRecord(key: "sluice.counter", version: 1, data: bytes, updatedAt: Date())
    ])
    // Two launches in a row (within the same millisecond, perhaps) that both find the record.
    var keys: [String] = []
    for _ in 0..<3 {
      let store = sqlCounterStore(.sqlite("counter", in: database))
      guard case .discarded(_, let key?) = store.persistence?.restoreOutcome else {
        Issue.record("expected discarded with a key")
        return
      }
      keys.append(key)
    }
    #expect(Set(keys).count == 3, "three quarantine keys: \(keys)")
    for key in keys { #expect(try database.quarantined(key)?.data == bytes) }
    // Never touched the record itself: it is still the bad one.
    #expect(try database.read("sluice.counter")?.data == bytes)
  }

  // MARK: - Files that cannot be a database

  @Test func aPathInAMissingFolderThrowsAndCreatesNothing() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let missing = folder.url.appendingPathComponent("missing")
    #expect(throws: (any Error).self) {
      try SQLiteStorage(path: missing.appendingPathComponent("db.sqlite").path)
    }
    #expect(!FileManager.default.fileExists(atPath: missing.path))
  }

  @Test func aPathThatIsADirectoryThrows() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let directory = folder.path("a-directory.sqlite")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    #expect(throws: (any Error).self) { try SQLiteStorage(path: directory) }
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory))
    #expect(isDirectory.boolValue)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  /// A file of garbage (not a database): `SQLiteStorage(path:)` throws SQLite's "file is not a
  /// database", and leaves the file as it was. No store can use the file; nothing is lost,
  /// nothing is quarantined: what to do with the file is the app's decision.
  @Test func aFileOfGarbageBytesIsRefusedByTheInitializerAndLeftAsItWas() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("garbage.sqlite")
    var generator = SystemRandomNumberGenerator()
    let garbage = Data((0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try garbage.write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: DatabaseError.self) { try SQLiteStorage(path: path) }
    #expect(error?.resultCode == .SQLITE_NOTADB, "\(String(describing: error))")
    #expect(FileManager.default.contents(atPath: path) == garbage, "the bytes are untouched")
  }

  /// Text where a database header should be: the same.
  @Test func aTextFileIsRefusedByTheInitializerAndLeftAsItWas() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("text.sqlite")
    let text = Data(String(repeating: "{\"value\": 1}\n", count: 400).utf8)
    try text.write(to: URL(fileURLWithPath: path))
    #expect(throws: DatabaseError.self) { try SQLiteStorage(path: path) }
    #expect(FileManager.default.contents(atPath: path) == text)
  }

  /// A database whose table page was damaged (the header is intact): the initializer succeeds,
  /// the read fails, the store starts from its initial state with `.unreadable`, and the
  /// failed writes leave the damaged bytes as they are.
  @Test func aDamagedTablePageMakesTheRecordUnreadable() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("damaged.sqlite")
    try Self.makeDatabase(at: path, counter: 41)
    let pageSize = 4_096
    // The root (and only) page of `sluice_records`; pages count from 1.
    let queue = try DatabaseQueue(path: path)
    let root = try #require(
      try await queue.read { db in
        try Int.fetchOne(
          db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'sluice_records'")
      })
    try queue.close()
    let page = ((root - 1) * pageSize)..<(root * pageSize)
    let original = try #require(FileManager.default.contents(atPath: path))
    var damaged = original
    damaged.replaceSubrange(page, with: Data(repeating: 0xA5, count: pageSize))
    try damaged.write(to: URL(fileURLWithPath: path))

    let database = try SQLiteStorage(path: path)
    let store = Store(
      initialState: SqlCounter(value: -1), reducer: sqlCounterReducer,
      persistence: .sqlite("counter", in: database))
    #expect(store.state == SqlCounter(value: -1))
    guard case .unreadable(let error) = store.persistence?.restoreOutcome,
      case .storage(key: "sluice.counter", operation: "read", underlying: let underlying) = error
    else {
      Issue.record(
        "expected unreadable, got \(sqlOutcome(store))")
      return
    }
    #expect((underlying as? DatabaseError)?.resultCode == .SQLITE_CORRUPT, "\(underlying)")
    #expect(store.errors.last?.source == .persistence("sluice.counter"))

    // Before its first write the store must keep the record it could not read; reading it
    // fails again, so nothing is written, and that is reported; the damaged bytes stay.
    store.dispatch(SqlIncrement())
    await #expect(throws: Sluice.PersistenceError.self) { try await store.persistence?.flush() }
    let lastError = store.persistence?.lastError
    if case .storage(key: "sluice.counter", operation: "read", underlying: _)? = lastError {
    } else {
      Issue.record("the failed read must be the last error: \(String(describing: lastError))")
    }
    #expect(FileManager.default.contents(atPath: path)?[page] == damaged[page])
  }

  /// A database cut short (a copy interrupted, a full disk): the initializer throws SQLite's
  /// "database disk image is malformed" (while reading the schema), and leaves the file as it
  /// was. As with garbage, no store can use the file, and nothing is quarantined.
  @Test func aTruncatedDatabaseIsRefusedByTheInitializerAndLeftAsItWas() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("truncated.sqlite")
    try Self.makeDatabase(at: path, counter: 7, padding: 20_000)
    let original = try #require(FileManager.default.contents(atPath: path))
    let truncated = original.prefix(3 * 4_096)
    try truncated.write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: DatabaseError.self) { try SQLiteStorage(path: path) }
    #expect(error?.resultCode == .SQLITE_CORRUPT, "\(String(describing: error))")
    #expect(FileManager.default.contents(atPath: path) == truncated)
  }

  // MARK: - A record the table should never hold

  /// A row whose columns have the wrong SQLite types — written by another tool sharing the file,
  /// or by a damaged record header (SQLite keeps no checksums) — gives a discarded record, never
  /// a crash (GRDB's non-throwing `row[...]` subscripts would trap; `SQLiteStorage.read` decodes
  /// with `try`). The restore runs in a child process, so that a regression fails this test
  /// instead of killing the test run.
  @Test(arguments: [
    "'three', X'7B2276616C7565223A317D', 0",  // version is text
    "1, 42, 0",  // data is an integer
    "1, X'7B2276616C7565223A317D', 'yesterday'",  // updated_at is text
  ])
  func aRowOfTheWrongTypesDoesNotCrashTheRestore(values: String) async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("types.sqlite")
    _ = try SQLiteStorage(path: path)
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: "INSERT INTO sluice_records (key, version, data, updated_at) "
          + "VALUES ('sluice.counter', \(values))")
    }
    try queue.close()
    await #expect(processExitsWith: .success) { [path = path as String] in
      let database = try SQLiteStorage(path: path)
      let store = sqlCounterStore(.sqlite("counter", in: database))
      guard case .discarded(_, let quarantineKey?)? = store.persistence?.restoreOutcome,
        try database.quarantined(quarantineKey) != nil
      else { exit(3) }
    }
  }

  // MARK: - A read that fails once

  /// When the read fails for a reason that goes away (a locked or busy file, no file
  /// descriptor left), the store starts from its initial state with `.unreadable`; before its
  /// first save replaces the record it could not read, it quarantines that record.
  @Test func aRecordThatCouldNotBeReadIsNotOverwrittenByTheNextSave() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("flaky.sqlite")
    try Self.makeDatabase(at: path, counter: 1_000)
    let database = try SQLiteStorage(path: path)
    let flaky = SqlFailingFirstRead(database)
    let store = sqlCounterStore(PersistenceKey("counter", storage: flaky))
    guard case .unreadable = store.persistence?.restoreOutcome else {
      Issue.record("expected unreadable")
      return
    }
    #expect(store.state.value == 0)
    store.dispatch(SqlIncrement())
    try? await store.persistence?.flush()
    let record = try #require(try database.read("sluice.counter"))
    let saved = try JSONDecoder().decode(SqlCounter.self, from: record.data)
    #expect(saved.value == 1)
    // The record of before is kept, whole (version included), under a quarantine key.
    let keys = try database.quarantineKeys(of: "sluice.counter")
    #expect(keys.count == 1)
    let keptKey = try #require(keys.first)
    let kept = try #require(try database.quarantined(keptKey))
    let text = String(decoding: kept.data, as: UTF8.self)
    #expect(text.contains(#""version":1"#))
    #expect(text.contains(#""value":1000"#))
  }

  // MARK: - Helpers

  /// Writes a counter (and, when `padding` > 0, a padded state) under "sluice.counter", then
  /// closes the database so that everything is in the main file (the `-wal` file it keeps is
  /// empty).
  static func makeDatabase(at path: String, counter: Int, padding: Int = 0) throws {
    do {
      let database = try SQLiteStorage(path: path)
      let json =
        padding > 0
        ? #"{"value":\#(counter),"padding":"\#(String(repeating: "p", count: padding))"}"#
        : #"{"value":\#(counter)}"#
      try database.write([sqlRecord("sluice.counter", version: 1, json: json)])
    }
    let wal = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
    try #require((wal?[.size] as? Int ?? 0) == 0)
  }
}

/// A counter with a long string, so that its record spans several pages.
struct SqlPadded: Codable, Equatable, Sendable {
  var value = 0
  var padding = ""
}

/// An SQLite storage whose first read fails, as a busy or locked file would.
final class SqlFailingFirstRead: PersistenceStorage, @unchecked Sendable {
  // @unchecked Sendable: `failed` is touched under `lock`.
  struct Busy: Error {}
  let database: SQLiteStorage
  private let lock = NSLock()
  private var failed = false

  init(_ database: SQLiteStorage) { self.database = database }

  func read(_ key: String) throws -> PersistedRecord? {
    let fail = lock.withLock {
      defer { failed = true }
      return !failed
    }
    if fail { throw Busy() }
    return try database.read(key)
  }

  func write(_ records: [PersistedRecord]) throws { try database.write(records) }

  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try database.quarantine(bytes, of: key, reason: reason)
  }
}
