import Foundation
import PostgresNIO
import Sluice
import SluicePostgresTestSupport
import SluiceTestSupport
import Testing

@testable import SluicePostgres

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

  /// The engine's timeouts and pauses follow its clock: a wait that nothing wakes lasts its
  /// timeout on that clock, and one an append wakes ends without the clock moving at all.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a wait nothing ended.
  func aWaitEndsWhenAnotherEngineAppendsOrAtItsTimeout() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let writer = PostgresLogEngine(configuration: configuration)
    #expect(try await writer.head() == 0)
    // The longest pause between two looks at the log; an operation's deadline is further off.
    let longestPause = Duration.milliseconds(250)

    // No append: the wait ends at its timeout, which the test reaches by moving the reader's
    // clock through each pause between two looks at the log (an operation's own deadline,
    // seconds away, is left alone).
    let driven = SteppedClock()
    let idle = PostgresLogEngine(configuration: Self.configuration(configuration, clock: driven))
    let driver = Task {
      for await deadline in driven.sleeps {
        let step = driven.now.duration(to: deadline)
        if step <= longestPause { driven.advance(by: step) }
      }
    }
    let started = driven.now
    try await idle.waitForEntries(after: 0, timeout: .milliseconds(100))
    driver.cancel()
    #expect(started.duration(to: driven.now) >= .milliseconds(100))

    // On a clock that never moves, only the other engine's append can end the wait.
    let still = SteppedClock()
    let reader = PostgresLogEngine(configuration: Self.configuration(configuration, clock: still))
    let waiter = Task { try await reader.waitForEntries(after: 0, timeout: .seconds(30)) }
    // The reader looked at the log, found nothing, and pauses before its next look.
    for await deadline in still.sleeps
    where still.now.duration(to: deadline) <= longestPause {
      break
    }
    _ = try await writer.append([Self.record("w", 1)])
    try await waiter.value
    #expect(try await reader.head() == 1)
    // Entries already there: the wait returns on its first look, with the clock still.
    try await reader.waitForEntries(after: 0, timeout: .seconds(30))
    #expect(still.now == EngineInstant(offset: .zero))
    await idle.close()
    await reader.close()
    await writer.close()
  }

  /// `configuration` with `clock` as its clock.
  static func configuration(
    _ configuration: PostgresLogEngine.Configuration, clock: any Clock<Duration>
  ) -> PostgresLogEngine.Configuration {
    var configuration = configuration
    configuration.clock = clock
    return configuration
  }

  /// An engine on a new database, with a timeout of 10 minutes on a clock that moves only when
  /// the test advances it, once it made the log's tables (a look at the head).
  static func engineOnSteppedClock() async throws -> (PostgresLogEngine, SteppedClock) {
    let clock = SteppedClock()
    let configuration = Self.configuration(
      try await PostgresServer.required.makeDatabase(timeout: .seconds(600)), clock: clock)
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.head() == 0)
    return (log, clock)
  }

  @Test func aNumberALogCannotStoreIsAnError() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    await #expect(throws: SharedLaneError(.numberOutOfRange(.max), operation: "use the shared log"))
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
    // The server's own bound (its lock timeout), which runs on real time: short, so that the
    // held head below ends in it. Nothing else in this test depends on how fast the machine
    // answers (a slow answer is a time-out too, and the append after it is tried again).
    var configuration = setup.configuration
    configuration.timeout = .seconds(2)
    let log = PostgresLogEngine(configuration: configuration)
    try await server.withConnection(to: configuration.database) { other in
      // Another node stuck in the middle of an append.
      // The lane's head row, made by its first append otherwise.
      try await other.query(
        "INSERT INTO sluice_lane_head VALUES ('default', 0) ON CONFLICT DO NOTHING",
        logger: PostgresServer.logger)
      try await other.query("BEGIN", logger: PostgresServer.logger)
      let head: PostgresQuery =
        "SELECT sequence FROM sluice_lane_head WHERE lane = 'default' FOR UPDATE"
      try await other.query(head, logger: PostgresServer.logger)
      await #expect {
        _ = try await log.append([Self.record("a", 1)])
      } throws: { error in
        (error as? PostgresLogError)?.kind == .timedOut
      }
      try await other.query("ROLLBACK", logger: PostgresServer.logger)
    }
    // The same engine appends again once the head is free. On a loaded machine an answer may
    // take longer than the 2 s bound: that attempt times out and changes nothing (the record's
    // origin sequence makes a repeat the same entry), and the next is tried, up to a hang guard.
    let guardEnds = ContinuousClock.now.advanced(by: hangGuard)
    var numbers: [UInt64]?
    while numbers == nil {
      do {
        numbers = try await log.append([Self.record("a", 1)])
      } catch let error as PostgresLogError
        where error.kind == .timedOut && ContinuousClock.now < guardEnds
      {
        continue
      }
    }
    #expect(numbers == [1])
    await log.close()
  }

  /// The engine gives up at its deadline on its own clock, whatever the server does: the
  /// server's bounds are 10 minutes away, and the test moves the engine's clock to the
  /// deadline once the append waits for the head.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means an append that never ended.
  func anAppendGivesUpAtItsDeadlineOnTheEnginesClock() async throws {
    let (log, clock) = try await Self.engineOnSteppedClock()
    // Past the head's deadline sleep: the append's starts at 1 s.
    clock.advance(by: .seconds(1))
    try await PostgresServer.required.withConnection(to: log.configuration.database) { other in
      // The lane's head row, made by its first append otherwise.
      try await other.query(
        "INSERT INTO sluice_lane_head VALUES ('default', 0) ON CONFLICT DO NOTHING",
        logger: PostgresServer.logger)
      try await other.query("BEGIN", logger: PostgresServer.logger)
      let head: PostgresQuery =
        "SELECT sequence FROM sluice_lane_head WHERE lane = 'default' FOR UPDATE"
      try await other.query(head, logger: PostgresServer.logger)
      let append = Task { try await log.append([Self.record("a", 1)]) }
      let due = EngineInstant(offset: .seconds(601))
      for await deadline in clock.sleeps where deadline == due { break }
      clock.advance(by: .seconds(600))
      await #expect {
        _ = try await append.value
      } throws: { error in
        let error = error as? PostgresLogError
        return error?.kind == .timedOut && error?.detail?.hasPrefix("no answer within") == true
      }
      try await other.query("ROLLBACK", logger: PostgresServer.logger)
    }
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    await log.close()
  }

  /// An operation given up at its deadline while its statement runs leaves the engine working:
  /// it once closed the statement's connection, and PostgresNIO's pool then stopped handing out
  /// connections in about one round in eight here, so every later operation waited for good.
  /// The rounds run at once, each on a new database.
  @Test(.timeLimit(.minutes(10)), arguments: 0..<20)  // A hang guard: an engine stalled for good.
  func anEngineWhoseOperationGaveUpWhileItsStatementRanKeepsWorking(round: Int) async throws {
    let (log, clock) = try await Self.engineOnSteppedClock()
    var sleeps = clock.sleeps.makeAsyncIterator()
    // The head's deadline, the listening attempt's and the listener's first heartbeat.
    for _ in 0..<3 { _ = await sleeps.next() }
    let append = Task { try await log.append([Self.record("a", 1)]) }
    // The append's deadline, at once: its statement runs or is about to.
    _ = await sleeps.next()
    clock.advance(by: .seconds(600))
    _ = try? await append.value
    #expect(try await log.append([Self.record("a", 1)]) == [1])
    await log.close()
  }

  /// Issue 25, fault 5 (a node that stayed idle for good after the server crashed): PostgresNIO
  /// drops a query written to a connection that closed meanwhile (the write carries no promise),
  /// so the query never ends, and cancelling it does not end it either. The engine gives up on
  /// the operation at its deadline all the same, without waiting for the query.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means an operation that never ended.
  func anOperationWhoseQueryNeverEndsGivesUpAtItsDeadline() async throws {
    let (log, clock) = try await Self.engineOnSteppedClock()
    let (closed, close) = AsyncStream<Void>.makeStream()
    let operation = Task {
      try await log.run("read the shared log") { connection in
        try await connection.close()
        close.yield()
        for try await _ in try await connection.query("SELECT 1", logger: PostgresServer.logger) {}
      }
    }
    for await _ in closed { break }
    clock.advance(by: .seconds(600))
    await #expect {
      try await operation.value
    } throws: { error in
      (error as? PostgresLogError)?.kind == .timedOut
    }
    #expect(try await log.head() == 0)
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
      WHERE oid = to_regprocedure('sluice_append_v3(text, text[], bigint[], text[], bytea[])')
      """
    let expected = ["enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off"]
    #expect(try await PostgresLogEngine(configuration: configuration).head() == 0)
    #expect(try await server.execute(settings, in: configuration.database) == expected)
    // A function as an earlier engine made it: the next engine to connect sets it up.
    try await server.execute(
      "ALTER FUNCTION sluice_append_v3(text, text[], bigint[], text[], bytea[]) RESET ALL",
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
    // The server sees the connections go within a few round trips; it is asked every 20 ms,
    // for at most ``hangGuard`` (its expiry means connections left open).
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: hangGuard)
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
    let waiter = Task { try await log.waitForEntries(after: 1, timeout: hangGuard) }
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
