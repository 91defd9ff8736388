import Foundation
import PostgresNIO
import Sluice
import SluicePostgres
import SluicePostgresTestSupport
import Testing

/// The shared log in a PostgreSQL database: one gap-free order, one entry per origin and origin
/// sequence, the same log for every engine on the database.
@Suite(.requiresPostgres, .postgresServer)
struct PostgresLogEngineTests {
  static func record(_ origin: String, _ number: UInt64, _ text: String = "") -> SharedLogRecord {
    SharedLogRecord(
      origin: origin, originSequence: number, name: "test.add", payload: Data(text.utf8))
  }

  @Test func batchesAreNumberedInOrderWithNoGap() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    #expect(try await log.head() == 0)
    #expect(try await log.append([Self.record("a", 1, "one")]) == [1])
    #expect(
      try await log.append([Self.record("a", 2), Self.record("b", 1), Self.record("a", 3)]) == [
        2, 3, 4,
      ])
    #expect(try await log.append([]) == [])
    #expect(try await log.head() == 4)
    let entries = try await log.entries(after: 0, limit: 10)
    #expect(entries.map(\.sequence) == [1, 2, 3, 4])
    #expect(
      entries.map(\.record) == [
        Self.record("a", 1, "one"), Self.record("a", 2), Self.record("b", 1), Self.record("a", 3),
      ])
    #expect(try await log.entries(after: 2, limit: 1).map(\.sequence) == [3])
    #expect(try await log.entries(after: 4, limit: 10).isEmpty)
    #expect(try await log.entries(after: 0, limit: 0).isEmpty)
    await log.close()
  }

  @Test func payloadsKeepEveryByte() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    let bytes = Data((0...255).map { UInt8($0) } + [0, 0])
    let records = [
      SharedLogRecord(origin: "é node ☃", originSequence: 1, name: "a.b", payload: bytes),
      SharedLogRecord(origin: "é node ☃", originSequence: 2, name: "", payload: Data()),
    ]
    #expect(try await log.append(records) == [1, 2])
    #expect(try await log.entries(after: 0, limit: 10).map(\.record) == records)
    await log.close()
  }

  @Test func aResubmittedRecordKeepsItsNumberAndIsNotAddedAgain() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    #expect(try await log.append([Self.record("a", 1), Self.record("a", 2)]) == [1, 2])
    // A retry after a lost acknowledgement, with a new action behind it.
    #expect(try await log.append([Self.record("a", 2), Self.record("a", 3)]) == [2, 3])
    // The same record twice in one batch, and an old one between new ones.
    #expect(try await log.append([Self.record("b", 1), Self.record("b", 1)]) == [4, 4])
    #expect(
      try await log.append([Self.record("c", 1), Self.record("a", 1), Self.record("c", 2)]) == [
        5, 1, 6,
      ])
    #expect(try await log.head() == 6)
    let entries = try await log.entries(after: 0, limit: 10)
    #expect(entries.map(\.record.origin) == ["a", "a", "a", "b", "c", "c"])
    await log.close()
  }

  @Test func enginesAppendingAtOnceShareOneContiguousLog() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    // One engine per writer, as separate machines would have; they create the tables together.
    let writers = (0..<4).map { _ in PostgresLogEngine(configuration: configuration) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, log) in writers.enumerated() {
        group.addTask {
          for batch in 0..<25 {
            let records = (1...4).map { Self.record("node\(index)", UInt64(batch * 4 + $0)) }
            let numbers = try await log.append(records)
            #expect(numbers.count == 4)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 + 1 == $1 })
          }
          for single in 101...120 {
            _ = try await log.append([Self.record("node\(index)", UInt64(single))])
          }
        }
      }
      try await group.waitForAll()
    }
    let entries = try await writers[0].entries(after: 0, limit: 1_000)
    #expect(entries.map(\.sequence) == Array(1...480))
    #expect(Set(entries.map(\.record)).count == 480)
    for index in 0..<4 {
      let mine = entries.filter { $0.record.origin == "node\(index)" }
      #expect(mine.map(\.record.originSequence) == Array(1...120))
    }
    for log in writers { await log.close() }
  }

  @Test func aWaitEndsWhenAnotherEngineAppendsOrAtItsTimeout() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let reader = PostgresLogEngine(configuration: configuration)
    let writer = PostgresLogEngine(configuration: configuration)
    let clock = ContinuousClock()
    let idle = try await clock.measure {
      try await reader.waitForEntries(after: 0, timeout: .milliseconds(100))
    }
    #expect(idle >= .milliseconds(100))
    #expect(idle < .seconds(5))
    let waiter = Task {
      try await reader.waitForEntries(after: 0, timeout: .seconds(30))
      return clock.now
    }
    let appended = clock.now
    _ = try await writer.append([Self.record("w", 1)])
    let woken = try await waiter.value
    #expect(appended.duration(to: woken) < .seconds(10))
    #expect(try await reader.head() == 1)
    // Entries already there: no wait at all.
    let immediate = try await clock.measure {
      try await reader.waitForEntries(after: 0, timeout: .seconds(30))
    }
    #expect(immediate < .seconds(1))
    await reader.close()
    await writer.close()
  }

  @Test func aNumberALogCannotStoreIsAnError() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    await #expect(throws: SharedLogError(.numberOutOfRange(.max), operation: "use the shared log"))
    {
      _ = try await log.append([Self.record("a", .max)])
    }
    #expect(try await log.head() == 0)
    await log.close()
  }

  @Test func aHeadHeldTooLongIsATimeoutAndTheNextAppendWorks() async throws {
    let server = try PostgresServer.required
    // The tables first, without the short timeout: a busy machine may take longer to make them.
    let setup = PostgresLogEngine(configuration: try await server.makeDatabase())
    #expect(try await setup.head() == 0)
    await setup.close()
    // Short enough for the test, long enough for a loaded machine to answer a read.
    var configuration = setup.configuration
    configuration.timeout = .seconds(2)
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.head() == 0)
    let clock = ContinuousClock()
    try await server.withConnection(to: configuration.database) { other in
      // Another node stuck in the middle of an append.
      try await other.query("BEGIN", logger: PostgresServer.logger)
      let head: PostgresQuery = "SELECT sequence FROM sluice_lane_head WHERE id = 1 FOR UPDATE"
      try await other.query(head, logger: PostgresServer.logger)
      let start = clock.now
      await #expect {
        _ = try await log.append([Self.record("a", 1)])
      } throws: { error in
        (error as? PostgresLogError)?.kind == .timedOut
      }
      #expect(start.duration(to: clock.now) < .seconds(6))
      try await other.query("ROLLBACK", logger: PostgresServer.logger)
    }
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    await log.close()
  }

  @Test func aRoleThatMayNotCreateTablesAppendsToTablesMadeByAnother() async throws {
    let server = try PostgresServer.required
    let owner = try await server.makeDatabase()
    #expect(try await PostgresLogEngine(configuration: owner).append([Self.record("o", 1)]) == [1])
    let log = PostgresLogEngine(configuration: try await server.appender(of: owner))
    #expect(try await log.append([Self.record("a", 1), Self.record("o", 1)]) == [2, 1])
    #expect(try await log.entries(after: 0, limit: 10).map(\.sequence) == [1, 2])
    await log.close()
  }

  @Test func theAppendFunctionLooksRecordsUpByIndexEvenWhenMadeByAnEarlierEngine() async throws {
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    let settings: PostgresQuery = """
      SELECT array_to_string(proconfig, ',') FROM pg_proc
      WHERE oid = to_regprocedure('sluice_append_v1(text[], bigint[], text[], bytea[])')
      """
    let expected = ["enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off"]
    #expect(try await PostgresLogEngine(configuration: configuration).head() == 0)
    #expect(try await server.execute(settings, in: configuration.database) == expected)
    // A function as an earlier engine made it: the next engine to connect sets it up.
    try await server.execute(
      "ALTER FUNCTION sluice_append_v1(text[], bigint[], text[], bytea[]) RESET ALL",
      in: configuration.database)
    #expect(try await PostgresLogEngine(configuration: configuration).head() == 0)
    #expect(try await server.execute(settings, in: configuration.database) == expected)
  }

  @Test func anEngineReleasedWithoutClosingClosesItsConnections() async throws {
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    let count: PostgresQuery = """
      SELECT count(*)::text FROM pg_stat_activity
      WHERE application_name = \(configuration.applicationName)
      """
    do {
      let log = PostgresLogEngine(configuration: configuration)
      #expect(try await log.append([Self.record("a", 1)]) == [1])
      try await log.waitForEntries(after: 1, timeout: .milliseconds(50))
    }
    // The server sees the connections go within a few round trips; it is asked every 20 ms.
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(5))
    var open = try await server.execute(count, in: "postgres")
    while open != ["0"], clock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
      open = try await server.execute(count, in: "postgres")
    }
    #expect(open == ["0"])
  }

  @Test func aClosedEngineThrowsAndEndsItsWaits() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    let waiter = Task { try await log.waitForEntries(after: 1, timeout: .seconds(30)) }
    await log.close()
    await #expect {
      try await waiter.value
    } throws: { error in
      (error as? PostgresLogError)?.kind == .closed
    }
    await #expect {
      _ = try await log.append([Self.record("a", 2)])
    } throws: { error in
      (error as? PostgresLogError)?.kind == .closed
    }
  }
}
