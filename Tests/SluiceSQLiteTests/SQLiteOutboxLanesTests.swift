import Foundation
import GRDB  // Only to make a file as the version without lanes made it.
import Sluice
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceSQLite

/// One outbox file shared by nodes named alike in different lanes: each lane's node sends only
/// what was kept for its lane.
@Suite struct SQLiteOutboxLanesTests {
  struct Add: Action, Codable { let text: String }
  static let actions = SharedActions().register(Add.self, as: "test.add")

  /// An in-memory engine whose appends fail while `down`.
  final class SwitchedLogEngine: SharedLogEngine {
    struct Down: Error {}
    let inner = InMemoryLogEngine()
    let down = Mutex(false)

    func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
      if down.withLock({ $0 }) { throw Down() }
      return try await inner.append(records, to: lane)
    }

    func entries(of lane: String, after sequence: UInt64, limit: Int) async
      -> [(sequence: UInt64, record: SharedLogRecord)]
    {
      await inner.entries(of: lane, after: sequence, limit: limit)
    }

    func head(of lane: String) async -> UInt64 { await inner.head(of: lane) }

    func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration) async {
      await inner.waitForEntries(of: lane, after: sequence, timeout: timeout)
    }

    func claimNode(_ node: String, of lane: String) async throws {
      try await inner.claimNode(node, of: lane)
    }

    func releaseNode(_ node: String, of lane: String) async {
      await inner.releaseNode(node, of: lane)
    }

    func latestSnapshot(of lane: String) async -> SharedSnapshot? {
      await inner.latestSnapshot(of: lane)
    }

    func snapshot(of lane: String, at sequence: UInt64) async -> SharedSnapshot? {
      await inner.snapshot(of: lane, at: sequence)
    }

    func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws {
      try await inner.saveSnapshot(snapshot, to: lane)
    }
  }

  /// The texts of `lane`'s `test.add` entries, in order.
  static func texts(_ engine: SwitchedLogEngine, _ lane: String) async throws -> [String] {
    try await engine.entries(of: lane, after: 0, limit: 100).filter {
      $0.record.name == "test.add"
    }.map { try JSONDecoder().decode(Add.self, from: $0.record.payload).text }
  }

  @Test(.timeLimit(.minutes(10)))
  func nodesNamedAlikeInTwoLanesSendOnlyTheirLanesKeptActions() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("outbox.sqlite")
    let engine = SwitchedLogEngine()
    let first = try SharedLane(
      engine: engine, lane: "x", actions: Self.actions, node: "a",
      outbox: try SQLiteOutboxStore(path: path))
    try await first.start()
    engine.down.withLock { $0 = true }
    first.dispatcher.dispatch(Add(text: "x1"))
    try await first.waitUntilDurable()
    // The crash: the node goes without flushing.
    await first.stop()
    engine.down.withLock { $0 = false }

    let other = try SharedLane(
      engine: engine, lane: "y", actions: Self.actions, node: "a",
      outbox: try SQLiteOutboxStore(path: path))
    try await other.start()
    try await other.send(Add(text: "y1"))
    #expect(try await Self.texts(engine, "y") == ["y1"])
    await other.stop()

    let again = try SharedLane(
      engine: engine, lane: "x", actions: Self.actions, node: "a",
      outbox: try SQLiteOutboxStore(path: path))
    try await again.start()
    try await again.flush()
    #expect(try await Self.texts(engine, "x") == ["x1"])
    await again.stop()
  }

  @Test func anOutboxFileWrittenBeforeLanesKeepsItsRecordsInTheDefaultLane() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("outbox.sqlite")
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1-shared-outbox');
          CREATE TABLE sluice_outbox (
            origin TEXT NOT NULL, origin_sequence INTEGER NOT NULL, name TEXT NOT NULL,
            payload BLOB NOT NULL, PRIMARY KEY (origin, origin_sequence));
          INSERT INTO sluice_outbox VALUES ('n', 1, 'test.add', x'7B7D');
          """)
    }
    try queue.close()
    let outbox = try SQLiteOutboxStore(path: path)
    let kept = SharedLogRecord(
      origin: "n", originSequence: 1, name: "test.add", payload: Data("{}".utf8))
    #expect(try await outbox.keptRecords(of: "default") == [kept])
    #expect(try await outbox.keptRecords(of: "other").isEmpty)
  }
}
