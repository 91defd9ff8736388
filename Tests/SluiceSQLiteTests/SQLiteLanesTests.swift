import Foundation
import GRDB  // Only to make a file as the version with one lane made it.
import SluiceTestSupport
import Testing

@testable import Sluice
@testable import SluiceSQLite

/// Many lanes in one SQLite file: each its own order, head, dedup and snapshots; a file of one
/// lane migrated to the default lane; node names claimed per lane.
@Suite struct SQLiteLanesTests {
  static func record(_ origin: String, _ number: UInt64, _ text: String = "") -> SharedLogRecord {
    SQLiteLogEngineTests.record(origin, number, text)
  }

  /// Each lane of `engine` has its own order from 1, head, dedup and snapshots.
  static func checkLanesAreSeparate(_ engine: some SharedLogEngine) async throws {
    #expect(
      try await engine.append([record("n", 1, "a1"), record("n", 2, "a2")], to: "a") == [1, 2])
    // The same origin and origin sequence in another lane is another action.
    #expect(try await engine.append([record("n", 1, "b1")], to: "b") == [1])
    #expect(
      try await engine.append([record("n", 2, "a2"), record("n", 3, "a3")], to: "a") == [2, 3])
    #expect(try await engine.head(of: "a") == 3)
    #expect(try await engine.head(of: "b") == 1)
    #expect(try await engine.head(of: "idle") == 0)
    #expect(
      try await engine.entries(of: "b", after: 0, limit: 10).map(\.record) == [record("n", 1, "b1")]
    )
    #expect(try await engine.entries(of: "a", after: 1, limit: 10).map(\.sequence) == [2, 3])
    let snapshot = SharedSnapshot(sequence: 1, states: ["s": Data("[]".utf8)], origins: ["n": 1])
    try await engine.saveSnapshot(snapshot, to: "b")
    #expect(try await engine.latestSnapshot(of: "b") == snapshot)
    #expect(try await engine.snapshot(of: "b", at: 1) == snapshot)
    #expect(try await engine.latestSnapshot(of: "a") == nil)
    #expect(try await engine.snapshot(of: "a", at: 1) == nil)
    for name in ["", String(repeating: "é", count: 101)] {
      await #expect(
        throws: SharedLaneError(.invalidLaneName(name), operation: "append to the shared log")
      ) {
        _ = try await engine.append([record("n", 9)], to: name)
      }
    }
    #expect(
      try await engine.append([record("n", 4)], to: String(repeating: "é", count: 100)) == [1])
  }

  /// A reused origin sequence with another action fails the whole batch; a retry of the same
  /// action returns its number.
  static func checkOriginConflicts(_ engine: some SharedLogEngine) async throws {
    #expect(try await engine.append([record("n", 1, "one")], to: "a") == [1])
    await #expect(
      throws: SharedLaneError(
        .originConflict(origin: "n", originSequence: 1, sequence: 1),
        operation: "append to the shared log")
    ) {
      _ = try await engine.append([record("n", 2, "two"), record("n", 1, "another")], to: "a")
    }
    // Another name, same payload.
    let renamed = SharedLogRecord(
      origin: "n", originSequence: 1, name: "test.other", payload: Data("one".utf8))
    await #expect(throws: SharedLaneError.self) { _ = try await engine.append([renamed], to: "a") }
    // Within one batch.
    await #expect(throws: SharedLaneError.self) {
      _ = try await engine.append([record("m", 1, "x"), record("m", 1, "y")], to: "a")
    }
    #expect(try await engine.head(of: "a") == 1)
    #expect(
      try await engine.append([record("n", 1, "one"), record("n", 2, "two")], to: "a") == [1, 2])
  }

  /// A node name is held once per lane until released.
  static func checkClaims(_ first: some SharedLogEngine, _ second: some SharedLogEngine)
    async throws
  {
    try await first.claimNode("n", of: "a")
    await #expect(
      throws: SharedLaneError(.nodeInUse(node: "n", lane: "a"), operation: "claim a node name")
    ) {
      try await second.claimNode("n", of: "a")
    }
    await #expect(throws: SharedLaneError.self) { try await first.claimNode("n", of: "a") }
    try await second.claimNode("n", of: "b")
    try await second.claimNode("m", of: "a")
    await first.releaseNode("n", of: "a")
    try await second.claimNode("n", of: "a")
    await second.releaseNode("n", of: "a")
    await second.releaseNode("n", of: "b")
    await second.releaseNode("m", of: "a")
  }

  @Test func lanesAreSeparateInMemory() async throws {
    try await Self.checkLanesAreSeparate(InMemoryLogEngine())
    try await Self.checkOriginConflicts(InMemoryLogEngine())
    let engine = InMemoryLogEngine()
    try await Self.checkClaims(engine, engine)
  }

  @Test func lanesAreSeparateInSQLite() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try await Self.checkLanesAreSeparate(try SQLiteLogEngine(path: folder.path("lanes.sqlite")))
    try await Self.checkOriginConflicts(try SQLiteLogEngine(path: folder.path("conflicts.sqlite")))
    // Two engines on one file, as two processes have.
    let path = folder.path("claims.sqlite")
    try await Self.checkClaims(try SQLiteLogEngine(path: path), try SQLiteLogEngine(path: path))
  }

  @Test func aSecondLiveNodeWithANameInUseIsRefused() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("log.sqlite")
    let actions = SharedActions()
    let first = try SharedLane(
      engine: try SQLiteLogEngine(path: path), lane: "room", actions: actions, node: "host")
    let second = try SharedLane(
      engine: try SQLiteLogEngine(path: path), lane: "room", actions: actions, node: "host")
    try await first.start()
    await #expect(
      throws: SharedLaneError(
        .nodeInUse(node: "host", lane: "room"), operation: "claim a node name")
    ) {
      try await second.start()
    }
    await first.stop()
    try await second.start()
    await second.stop()
  }

  @Test(.timeLimit(.minutes(10))) func aFileOfOneLaneBecomesTheDefaultLane() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("old.sqlite")
    let snapshot = SharedSnapshot(sequence: 2, states: ["s": Data("[1]".utf8)], origins: ["o": 2])
    let body = try JSONEncoder().encode(snapshot)
    // The file as the version with one lane left it.
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1-shared-log'), ('v1-shared-snapshots');
          CREATE TABLE sluice_log (sequence INTEGER PRIMARY KEY, origin TEXT NOT NULL,
            origin_sequence INTEGER NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL,
            UNIQUE (origin, origin_sequence));
          CREATE TABLE sluice_snapshot (sequence INTEGER PRIMARY KEY, hash INTEGER NOT NULL,
            body BLOB NOT NULL);
          INSERT INTO sluice_log VALUES (1, 'o', 1, 'test.add', x''), (2, 'o', 2, 'test.add', x'31');
          """)
      try db.execute(
        sql: "INSERT INTO sluice_snapshot VALUES (2, ?, ?)",
        arguments: [Int64(bitPattern: snapshot.hash), body])
    }
    try queue.close()
    await #expect(throws: SQLiteStorageError.self) {
      _ = try await SQLiteLogEngine(path: path, mode: .readOnly).head(of: "default")
    }
    // A reader's lane says so at once: another try would meet the same file (it retried
    // forever, as if the engine were down).
    let reader = try SharedLane(
      engine: try SQLiteLogEngine(path: path, mode: .readOnly), actions: SharedActions(),
      snapshotInterval: 0)
    await #expect(throws: SQLiteStorageError.self) { try await reader.start() }
    let engine = try SQLiteLogEngine(path: path)
    #expect(try await engine.head(of: "default") == 2)
    #expect(
      try await engine.entries(of: "default", after: 0, limit: 10).map(\.record) == [
        Self.record("o", 1), Self.record("o", 2, "1"),
      ])
    #expect(try await engine.latestSnapshot(of: "default") == snapshot)
    #expect(
      try await engine.append(
        [Self.record("o", 2, "1"), Self.record("o", 3)], to: "default") == [2, 3])
    #expect(try await engine.head(of: "other") == 0)
    // Opened again, the file is not migrated twice.
    #expect(try await SQLiteLogEngine(path: path).head(of: "default") == 3)
    #expect(
      try await SQLiteLogEngine(path: path, mode: .readOnly).head(of: "default") == 3)
  }
}
