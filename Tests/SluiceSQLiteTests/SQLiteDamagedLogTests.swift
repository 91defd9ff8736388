import Foundation
import GRDB  // Only to write rows the engine never writes.
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

/// Rows of the shared log that the engine did not write (a negative number, a NULL, another
/// type, a number past the largest): a node stops before the entry with
/// ``SharedLaneError/Kind/undecodableEntry(sequence:reason:)``, never crashes, whether it was
/// running when the row came or starts after it.
@Suite struct SQLiteDamagedLogTests {
  struct Add: Action, Codable { let text: String }

  /// A damage: the values of the row written at sequence 3 of the default lane, as SQL; the
  /// node stops before entry 3.
  struct Damage: Sendable, CustomTestStringConvertible {
    let label: String
    let sequence: String
    let originSequence: String
    let name: String
    let payload: String
    var testDescription: String { label }

    init(
      _ label: String, sequence: String = "3", originSequence: String = "1",
      name: String = "'test.add'", payload: String = "CAST('{\"text\":\"x\"}' AS BLOB)"
    ) {
      self.label = label
      self.sequence = sequence
      self.originSequence = originSequence
      self.name = name
      self.payload = payload
    }
  }

  static let damages: [Damage] = [
    Damage("a negative origin sequence", originSequence: "-1"),
    Damage("an origin sequence as text", originSequence: "'one'"),
    Damage("an origin sequence as a real", originSequence: "1.5"),
    Damage("a NULL origin sequence", originSequence: "NULL"),
    Damage("a NULL name", name: "NULL"),
    Damage("a name as an integer", name: "7"),
    Damage("a NULL payload", payload: "NULL"),
    Damage("a payload as an integer", payload: "42"),
    Damage("a sequence as text", sequence: "'three'"),
    Damage("the largest sequence", sequence: "9223372036854775807"),
  ]

  static let actions = SharedActions().register(Add.self, as: "test.add")

  /// A file with two entries, its log table rebuilt without constraints (as a tool that did
  /// not know them would).
  static func damagedFile(in folder: TemporaryFolder) async throws -> String {
    let path = folder.path("log.sqlite")
    let engine = try SQLiteLogEngine(path: path)
    let payload = try JSONEncoder().encode(Add(text: "ok"))
    _ = try await engine.append(
      [1, 2].map {
        SharedLogRecord(origin: "w", originSequence: $0, name: "test.add", payload: payload)
      },
      to: "default")
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE loose (lane, sequence, origin, origin_sequence, name, payload);
          INSERT INTO loose SELECT * FROM sluice_log;
          DROP TABLE sluice_log;
          ALTER TABLE loose RENAME TO sluice_log;
          """)
    }
    try queue.close()
    return path
  }

  static func damage(_ path: String, _ damage: Damage) async throws {
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO sluice_log VALUES ('default', \(damage.sequence), 'intruder',
            \(damage.originSequence), \(damage.name), \(damage.payload))
          """)
    }
    try queue.close()
  }

  static func checkStopped(_ error: SharedLaneError?, _ damage: Damage) {
    guard case .undecodableEntry(let sequence, _)? = error?.kind else {
      Issue.record("\(damage.label): expected undecodableEntry, got \(String(describing: error))")
      return
    }
    #expect(sequence == 3, "\(damage.label)")
  }

  @Test(arguments: damages) func aRunningNodeStopsBeforeADamagedRow(_ damage: Damage) async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try await Self.damagedFile(in: folder)
    let lane = try SharedLane(
      engine: try SQLiteLogEngine(path: path), actions: Self.actions, node: "running")
    try await lane.start()
    #expect(lane.appliedSequence == 2)
    try await Self.damage(path, damage)
    // The node appends too: an append after a damaged row must not crash it either.
    lane.dispatcher.dispatch(Add(text: "after"))
    #expect(await sqlEventually { lane.stopReason != nil })
    Self.checkStopped(lane.stopReason, damage)
    #expect(lane.appliedSequence == 2)
    await lane.stop()
  }

  @Test(arguments: damages) func aStartingNodeStopsBeforeADamagedRow(_ damage: Damage) async throws
  {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try await Self.damagedFile(in: folder)
    try await Self.damage(path, damage)
    let lane = try SharedLane(
      engine: try SQLiteLogEngine(path: path), actions: Self.actions, node: "fresh")
    await #expect(throws: SharedLaneError.self) { try await lane.start() }
    Self.checkStopped(lane.stopReason, damage)
    #expect(lane.appliedSequence == 2)
    await lane.stop()
  }

  @Test(arguments: ["-1", "'one'", "NULL"])
  func anOutboxRowTheStoreDidNotWriteStopsTheStartNotTheProcess(_ originSequence: String)
    async throws
  {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("outbox.sqlite")
    let outbox = try SQLiteOutboxStore(path: path)
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE loose (lane, origin, origin_sequence, name, payload);
          DROP TABLE sluice_outbox;
          ALTER TABLE loose RENAME TO sluice_outbox;
          INSERT INTO sluice_outbox VALUES ('default', 'n', \(originSequence), 'test.add', x'7B7D');
          """)
    }
    try queue.close()
    await #expect(throws: DatabaseError.self) {
      _ = try await outbox.keptRecords(of: "default")
    }
    let lane = try SharedLane(
      engine: InMemoryLogEngine(), actions: Self.actions, node: "n", outbox: outbox)
    await #expect(throws: DatabaseError.self) { try await lane.start() }
  }
}
