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

  /// An operation fails with an attempt to listen only when the attempt began after the
  /// operation came. In CI, an append came while an attempt begun during an outage (the
  /// server refused the node's role) was still under way; that attempt's failure, which said
  /// nothing of the server as it was by then, failed the append. Here the attempt under way
  /// waits for the set-up's lock until its deadline: the operation that came meanwhile asks for
  /// a new attempt, which listens.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means an operation that never ended.
  func anOperationIsAnsweredByAnAttemptThatBeganAfterItCame() async throws {
    let server = try PostgresServer.required
    let clock = SteppedClock()
    let configuration = PostgresLogEngineTests.configuration(
      try await server.makeDatabase(timeout: .seconds(600)), clock: clock)
    let log = PostgresLogEngine(configuration: configuration)
    var sleeps = clock.sleeps.makeAsyncIterator()
    let second = try await server.withConnection(to: configuration.database) { other in
      // The advisory lock of `LogSchema.setUp`.
      let lock: PostgresQuery = "SELECT pg_advisory_lock(7236828213577265)::text"
      for try await _ in try await other.query(lock, logger: PostgresServer.logger) {}
      let first = Task { try await log.head() }
      // The first look's deadline and the attempt's, both at 600 s.
      for _ in 0..<2 { _ = await sleeps.next() }
      clock.advance(by: .seconds(1))
      let second = Task { try await log.head() }
      // The second look's deadline (601 s): it came while the attempt was under way.
      _ = await sleeps.next()
      clock.advance(by: .seconds(599))
      await #expect {
        try await first.value
      } throws: { error in
        (error as? PostgresLogError)?.kind == .timedOut
      }
      let unlock: PostgresQuery = "SELECT pg_advisory_unlock_all()::text"
      for try await _ in try await other.query(unlock, logger: PostgresServer.logger) {}
      return second
    }
    #expect(try await second.value == 0)
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

  /// A name the engine counts as its own but another session holds, while an earlier listening
  /// session of the engine still runs on the server (the network cut its connection), is lost
  /// once the listener opens again. The engine ends its earlier session and does not wait for
  /// the name: that wait (until `lock_timeout`, the engine's timeout) outlasted the attempt's
  /// deadline, so every attempt was given up and the listener never listened again.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a listener that never listens.
  func aNameAnotherSessionHoldsIsLostWithoutWaitingForIt() async throws {
    try await Self.withListenerCut { listener, other in
      for try await row in try await other.query(
        LogSchema.claim("m", of: "l"), logger: PostgresServer.logger)
      {
        #expect(try row.decode(Bool.self))
      }
      listener.state.withLock { _ = $0.claims.insert(.init(node: "m", lane: "l")) }
    } then: { listener in
      #expect(listener.isLost("m", of: "l"))
    }
  }

  /// An attempt given up after it noted its session, before it took the names back, leaves two
  /// sessions that may hold them: the one that held them (the server still runs it: the network
  /// cut its connection) and its own. The next attempt ends both and keeps the names; ending
  /// only the last one lost them to the session the server still runs.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a listener that never listens.
  func everyEarlierSessionThatMayHoldANameIsEnded() async throws {
    try await Self.withListenerCut { listener, other in
      try await listener.claim("n", of: "l", operation: "claim", endpoint: "")
      let sessions = try await other.query(LogSchema.session, logger: PostgresServer.logger)
      for try await (pid, start) in sessions.decode((Int32, String).self) {
        listener.state.withLock { $0.sessions.append(.init(pid: pid, start: start)) }
      }
    } then: { listener in
      #expect(!listener.isLost("n", of: "l"))
    }
  }

  /// Makes a listener that listens through a proxy, runs `prepare` with it and a connection of
  /// the test's own (open until the listener is back), cuts the proxy, and once the listener
  /// listens again (which it must), runs `check`.
  private static func withListenerCut(
    _ prepare: (LogListener, PostgresConnection) async throws -> Void,
    then check: (LogListener) -> Void
  ) async throws {
    let server = try PostgresServer.required
    var configuration = try await server.makeDatabase()
    let proxy = try await CuttableProxy(to: configuration.port)
    configuration.port = proxy.port
    let listener = LogListener(configuration: configuration) {}
    let attempt = try await listener.ready("listen", endpoint: "", since: 0)
    try await server.withConnection(to: configuration.database) { other in
      try await prepare(listener, other)
      await proxy.cut()
      #expect(await listens(listener, after: attempt))
    }
    check(listener)
    listener.stop()
    await proxy.close()
  }

  /// Whether the listener listens once an attempt after `attempt` ended; waits for each change.
  private static func listens(_ listener: LogListener, after attempt: UInt64) async -> Bool {
    while true {
      let token = listener.observe("l")
      let (phase, current) = listener.state.withLock { ($0.phase, $0.attempt) }
      if current > attempt {
        switch phase {
        case .up: return true
        case .down, .stopped: return false
        case .idle, .connecting: break
        }
      }
      await listener.wait(after: token, lane: "l", atMost: .seconds(3_600))
    }
  }
}
