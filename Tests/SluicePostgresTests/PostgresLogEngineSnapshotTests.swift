import Foundation
import SluicePostgresTestSupport
import Testing

@testable import Sluice
@testable import SluicePostgres

/// The shared lane's snapshots in a PostgreSQL database: saved and read back byte for byte, the
/// first one after an entry stays, and a database without the snapshot table has none.
@Suite(.requiresPostgres, .postgresServer)
struct PostgresLogEngineSnapshotTests {
  static func snapshot(_ sequence: UInt64, _ text: String) -> SharedSnapshot {
    SharedSnapshot(
      sequence: sequence,
      states: ["texts": Data(#"["\#(text)"]"#.utf8), "bytes": Data((0...255).map { UInt8($0) })],
      origins: ["a": sequence, "é node ☃": 1])
  }

  @Test func snapshotsAreSavedAndReadBackAndTheFirstOneAfterAnEntryStays() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.latestSnapshot() == nil)
    #expect(try await log.snapshot(at: 10) == nil)
    try await log.saveSnapshot(Self.snapshot(10, "ten"))
    // Another node's states after the same entry: the first snapshot stays.
    try await log.saveSnapshot(Self.snapshot(10, "other"))
    try await log.saveSnapshot(Self.snapshot(20, "twenty"))
    let other = PostgresLogEngine(configuration: configuration)
    #expect(try await other.snapshot(at: 10) == Self.snapshot(10, "ten"))
    #expect(try await other.latestSnapshot() == Self.snapshot(20, "twenty"))
    #expect(try await other.snapshot(at: 15) == nil)
    #expect(try await other.latestSnapshot()?.hash == Self.snapshot(20, "twenty").hash)
    await #expect(throws: SharedLaneError(.numberOutOfRange(.max), operation: "use the shared log"))
    {
      try await log.saveSnapshot(Self.snapshot(.max, "too far"))
    }
    await log.close()
    await other.close()
  }

  @Test func aDatabaseWithoutTheSnapshotTableHasNoSnapshotAndItsLogStillWorks() async throws {
    let server = try PostgresServer.required
    let owner = try await server.makeDatabase()
    #expect(try await PostgresLogEngine(configuration: owner).head() == 0)
    // A log made by an engine that kept no snapshots, used by a role that may not create the
    // table.
    try await server.execute("DROP TABLE sluice_snapshot", in: owner.database)
    let log = PostgresLogEngine(configuration: try await server.appender(of: owner))
    let record = SharedLogRecord(origin: "a", originSequence: 1, name: "x", payload: Data())
    #expect(try await log.append([record]) == [1])
    #expect(try await log.latestSnapshot() == nil)
    #expect(try await log.snapshot(at: 1) == nil)
    await #expect {
      try await log.saveSnapshot(Self.snapshot(1, "one"))
    } throws: { error in
      (error as? PostgresLogError)?.kind == .server
    }
    await log.close()
  }

  @Test func aSavedBodyThatIsNotASnapshotIsAnUnexpectedResponse() async throws {
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.head() == 0)
    try await server.execute(
      "INSERT INTO sluice_snapshot (lane, sequence, hash, body) VALUES ('default', 5, 0, 'garbage'::bytea)",
      in: configuration.database)
    await #expect {
      _ = try await log.latestSnapshot()
    } throws: { error in
      (error as? PostgresLogError)?.kind == .unexpectedResponse
    }
    await log.close()
  }
}
