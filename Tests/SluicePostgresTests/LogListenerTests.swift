import PostgresNIO
import SluicePostgresTestSupport
import Testing

@testable import SluicePostgres

/// The engine's listening connection does not wait for good on its way up, nor while it gives
/// claims back: each is bounded by the engine's timeout, on the engine's clock.
@Suite(.requiresPostgres, .postgresServer)
struct LogListenerTests {
  /// Issue 25, fault 5 (appends stalled for good after a server restart): an attempt to listen
  /// whose set-up never ends kept the listener from coming up, and from renewing the engine's
  /// pool, for good. Here the set-up waits for the lock under which the engine makes the log's
  /// tables, held by another session: past the engine's timeout the attempt is given up, and
  /// the next one listens.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a listener stuck for good.
  func anAttemptToListenThatNeverEndsIsGivenUpAtItsDeadline() async throws {
    let server = try PostgresServer.required
    let clock = SteppedClock()
    let configuration = PostgresLogEngineTests.configuration(
      try await server.makeDatabase(timeout: .seconds(600)), clock: clock)
    let log = PostgresLogEngine(configuration: configuration)
    try await server.withConnection(to: configuration.database) { other in
      // The advisory lock of `LogSchema.setUp`.
      let lock: PostgresQuery = "SELECT pg_advisory_lock(7236828213577265)::text"
      for try await _ in try await other.query(lock, logger: PostgresServer.logger) {}
      let head = Task { try await log.head() }
      // The head's deadline and the attempt's.
      var sleeps = clock.sleeps.makeAsyncIterator()
      for _ in 0..<2 { _ = await sleeps.next() }
      clock.advance(by: .seconds(600))
      await #expect {
        try await head.value
      } throws: { error in
        (error as? PostgresLogError)?.kind == .timedOut
      }
      // The attempt was given up: the listener pauses before the next one.
      _ = await sleeps.next()
      let unlock: PostgresQuery = "SELECT pg_advisory_unlock_all()::text"
      for try await _ in try await other.query(unlock, logger: PostgresServer.logger) {}
    }
    #expect(try await log.head() == 0)
    await log.close()
  }

  /// Giving claims back (a node's release, the engine's close) does not wait for a query that
  /// never ends: PostgresNIO drops a query written to a connection that closed meanwhile.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a release that never ended.
  func givingClaimsBackGivesUpAtItsDeadline() async throws {
    let clock = SteppedClock()
    let configuration = PostgresLogEngineTests.configuration(
      try await PostgresServer.required.makeDatabase(timeout: .seconds(600)), clock: clock)
    let listener = LogListener(configuration: configuration) {}
    let connection = try await PostgresConnection.connect(
      configuration: try configuration.connection, id: 0, logger: PostgresServer.logger)
    try await connection.close()
    listener.state.withLock { state in
      state.connection = connection
      state.claims = [.init(node: "a", lane: "l"), .init(node: "b", lane: "l")]
    }
    let released = Task {
      await listener.release("a", of: "l")
      await listener.releaseAll()
    }
    var sleeps = clock.sleeps.makeAsyncIterator()
    for _ in 0..<2 {
      _ = await sleeps.next()
      clock.advance(by: .seconds(600))
    }
    await released.value
    #expect(listener.state.withLock { $0.claims.isEmpty })
    listener.stop()
  }
}
