import Foundation
import PostgresNIO
import Sluice
import SluicePostgres
import SluicePostgresTestSupport
import Testing

/// A log engine whose connections are terminated, or whose server stops and starts again:
/// errors are thrown values (within the engine's timeout, which
/// `PostgresLogEngineTests.anAppendGivesUpAtItsDeadlineOnTheEnginesClock` checks on a test
/// clock), the engine connects again by itself, and the log keeps no gap and no duplicate.
///
/// A server of its own, one test at a time: stopping the server would break any test beside.
@Suite(.requiresPostgres, .postgresServer, .serialized)
struct PostgresLogEngineOutageTests {
  static func record(_ origin: String, _ number: UInt64) -> SharedLogRecord {
    SharedLogRecord(origin: origin, originSequence: number, name: "test.add", payload: Data())
  }

  @Test func terminatedConnectionsAreOpenedAgain() async throws {
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    // Opens the listening connection too.
    try await log.waitForEntries(after: 1, timeout: .milliseconds(20))
    for round in 0..<2 {
      let terminated = try await server.execute(
        """
        SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
        WHERE application_name = \(configuration.applicationName)
        """, in: "postgres")
      #expect(!terminated.isEmpty)
      let next = UInt64(2 + round * 2)
      do {
        #expect(try await log.append([Self.record("a", next)]) == [next])
      } catch let error as PostgresLogError {
        #expect(error.kind == .unreachable, "\(error)")
      }
      // Resubmitted with the next one: numbered once, right after.
      #expect(
        try await log.append([Self.record("a", next), Self.record("a", next + 1)]) == [
          next, next + 1,
        ])
    }
    let entries = try await log.entries(after: 0, limit: 100)
    #expect(entries.map(\.sequence) == Array(1...5))
    #expect(entries.map(\.record.originSequence) == Array(1...5))
    await log.close()
  }

  @Test func appendsFailWhileTheServerIsDownAndWorkOnceItIsBack() async throws {
    let server = try PostgresServer.required
    // A hang guard: a stopped server refuses at once, and the one started again may be slow
    // to answer on a loaded machine.
    let configuration = try await server.makeDatabase(timeout: .seconds(60))
    let log = PostgresLogEngine(configuration: configuration)
    let reader = PostgresLogEngine(configuration: configuration)
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    try await reader.waitForEntries(after: 1, timeout: .milliseconds(20))
    try await server.stop()
    await #expect {
      _ = try await log.append([Self.record("a", 2)])
    } throws: { error in
      (error as? PostgresLogError)?.kind == .unreachable
    }
    await #expect(throws: PostgresLogError.self) {
      try await reader.waitForEntries(after: 1, timeout: .seconds(30))
    }
    try await server.start()
    let waiter = Task { try await reader.waitForEntries(after: 1, timeout: .seconds(30)) }
    #expect(try await log.append([Self.record("a", 2), Self.record("a", 3)]) == [2, 3])
    try await waiter.value
    let entries = try await reader.entries(after: 0, limit: 100)
    #expect(entries.map(\.sequence) == [1, 2, 3])
    #expect(entries.map(\.record.originSequence) == [1, 2, 3])
    await log.close()
    await reader.close()
  }
}
