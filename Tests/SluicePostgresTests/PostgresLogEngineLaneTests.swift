import Foundation
import PostgresNIO
import SluicePostgresTestSupport
import Testing

@testable import Sluice
@testable import SluicePostgres

/// Many lanes in one database (issue 25): each lane its own gap-free order, head, dedup and
/// snapshots; an origin sequence reused for another action is an error, never a silent loss;
/// a node name is held by one live node at a time.
@Suite(.requiresPostgres, .postgresServer)
struct PostgresLogEngineLaneTests {
  static func record(_ origin: String, _ number: UInt64, _ text: String = "") -> SharedLogRecord {
    PostgresLogEngineTests.record(origin, number, text)
  }

  @Test func eachLaneHasItsOwnOrderHeadAndRecords() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    #expect(try await log.head(of: "room-1") == 0)
    #expect(
      try await log.append([Self.record("a", 1), Self.record("a", 2)], to: "room-1") == [1, 2])
    // The same origin and origin sequence in another lane is another action.
    #expect(try await log.append([Self.record("a", 1, "other")], to: "room-2") == [1])
    #expect(try await log.append([Self.record("a", 3)], to: "room-1") == [3])
    #expect(try await log.head(of: "room-1") == 3)
    #expect(try await log.head(of: "room-2") == 1)
    #expect(try await log.head(of: "room-3") == 0)
    #expect(try await log.entries(of: "room-1", after: 0, limit: 10).map(\.sequence) == [1, 2, 3])
    #expect(
      try await log.entries(of: "room-2", after: 0, limit: 10).map(\.record) == [
        Self.record("a", 1, "other")
      ])
    let snapshot = SharedSnapshot(sequence: 1, states: ["s": Data("2".utf8)], origins: ["a": 1])
    try await log.saveSnapshot(snapshot, to: "room-2")
    #expect(try await log.latestSnapshot(of: "room-2") == snapshot)
    #expect(try await log.latestSnapshot(of: "room-1") == nil)
    #expect(try await log.snapshot(of: "room-1", at: 1) == nil)
    await log.close()
  }

  @Test(arguments: ["", String(repeating: "é", count: 101)])
  func aLaneNameThatIsEmptyOrTooLongIsRefused(lane: String) async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    await #expect {
      _ = try await log.append([Self.record("a", 1)], to: lane)
    } throws: { error in
      (error as? SharedLaneError)?.kind == .invalidLaneName(lane)
    }
    await log.close()
  }

  /// Issue 25, fault 2: an origin sequence already in the lane with another action (a node
  /// restarted under its name while its predecessor's append still ran, two live processes with
  /// one name) is an error, and nothing of the batch is appended; the same action sent again
  /// still gets its number.
  @Test func anOriginSequenceReusedForAnotherActionIsAConflictAndAppendsNothing() async throws {
    let log = PostgresLogEngine(configuration: try await PostgresServer.required.makeDatabase())
    #expect(try await log.append([Self.record("n", 1, "first")], to: "lane") == [1])
    for reused in [
      [Self.record("n", 2, "new"), Self.record("n", 1, "another")],
      [
        Self.record("n", 2, "new"),
        SharedLogRecord(
          origin: "n", originSequence: 1, name: "test.other", payload: Data("first".utf8)),
      ],
    ] {
      await #expect(
        throws: SharedLaneError(
          .originConflict(origin: "n", originSequence: 1, sequence: 1),
          operation: "append to the shared log")
      ) {
        _ = try await log.append(reused, to: "lane")
      }
    }
    // Twice in one batch with two actions: the second is the conflict, and nothing is added.
    await #expect {
      _ = try await log.append([Self.record("n", 5, "x"), Self.record("n", 5, "y")], to: "lane")
    } throws: { error in
      if case .originConflict(origin: "n", originSequence: 5, _) = (error as? SharedLaneError)?.kind
      {
        return true
      }
      return false
    }
    #expect(try await log.head(of: "lane") == 1)
    #expect(
      try await log.append([Self.record("n", 1, "first"), Self.record("n", 2)], to: "lane") == [
        1, 2,
      ])
    await log.close()
  }

  /// Issue 25, fault 2: two live nodes with one name (a rolling deploy naming nodes by host)
  /// are refused, in one engine or two; the name is free again once released or once its
  /// engine is closed.
  @Test func aNodeNameIsHeldByOneLiveNodeAtATime() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let first = PostgresLogEngine(configuration: configuration)
    let second = PostgresLogEngine(configuration: configuration)
    let inUse = SharedLaneError(
      .nodeInUse(node: "host-1", lane: "orders"), operation: "claim a node name")
    try await first.claimNode("host-1", of: "orders")
    await #expect(throws: inUse) { try await second.claimNode("host-1", of: "orders") }
    await #expect(throws: inUse) { try await first.claimNode("host-1", of: "orders") }
    // Another lane, another name: free.
    try await second.claimNode("host-1", of: "invoices")
    try await second.claimNode("host-2", of: "orders")
    await first.releaseNode("host-1", of: "orders")
    try await second.claimNode("host-1", of: "orders")
    await #expect(throws: inUse) { try await first.claimNode("host-1", of: "orders") }
    // A closed engine, as a dead process, holds nothing.
    await second.close()
    try await first.claimNode("host-1", of: "orders")
    await first.close()
  }

  /// Two nodes of one engine claiming one name at once: one gets it, the other is refused, and
  /// once the first releases it the name is free for another engine. The claim is a session
  /// advisory lock, which a session counts: a refused claim that took it a second time on the
  /// engine's session must give it back.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a wait nothing ended.
  func aClaimRaceInOneEngineLeavesTheNameFreeOnceReleased() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let engine = PostgresLogEngine(configuration: configuration)
    let other = PostgresLogEngine(configuration: configuration)
    for round in 0..<20 {
      let node = "host-\(round)"
      let claimed = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<4 {
          group.addTask { (try? await engine.claimNode(node, of: "orders")) != nil }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
      #expect(claimed == 1, "round \(round): \(claimed) claims of one name succeeded")
      await engine.releaseNode(node, of: "orders")
      try await other.claimNode(node, of: "orders")
    }
    await engine.close()
    await other.close()
  }

  /// A node whose name another node took while the server was away stops appending: the
  /// engine takes its claims again when it connects again, and one it cannot take is an error.
  @Test func aNameTakenWhileTheServerWasAwayStopsTheNodesAppends() async throws {
    let server = try PostgresServer.required
    let owner = try await server.makeDatabase()
    let taker = PostgresLogEngine(configuration: owner)
    #expect(try await taker.head(of: "lane") == 0)
    let appender = try await server.appender(of: owner)
    let node = PostgresLogEngine(configuration: appender)
    try await node.claimNode("n", of: "lane")
    #expect(try await node.append([Self.record("n", 1)], to: "lane") == [1])
    // The node's connections are cut, and it cannot connect again for a while: the server
    // releases its claim, and another node takes the name.
    try await server.execute("ALTER ROLE \(unescaped: appender.user) NOLOGIN", in: "postgres")
    // `pg_terminate_backend` returns before the session ends and gives back its advisory
    // locks, unless it waits for the end (60 s at most: a hang guard).
    try await server.execute(
      """
      SELECT pg_terminate_backend(pid, 60000)::text FROM pg_stat_activity
      WHERE usename = \(appender.user)
      """, in: "postgres")
    try await taker.claimNode("n", of: "lane")
    try await server.execute("ALTER ROLE \(unescaped: appender.user) LOGIN", in: "postgres")
    // Connected again (the append asks for it at once), the node finds its name taken.
    await #expect(
      throws: SharedLaneError(
        .nodeInUse(node: "n", lane: "lane"), operation: "append to the shared log")
    ) {
      _ = try await node.append([Self.record("n", 2)], to: "lane")
    }
    #expect(try await taker.head(of: "lane") == 1)
    await node.close()
    await taker.close()
  }

  /// A node whose connections the network dropped connects again while the server still runs
  /// its old session, which holds the node's name (in the chaos test, a session terminated on
  /// the server and still exiting): the engine ends that session and keeps its name, instead of
  /// taking it for another node's and refusing every append (`nodeInUse`) from then on.
  @Test func aNameTheEnginesOldSessionStillHoldsIsTakenBack() async throws {
    let server = try PostgresServer.required
    var configuration = try await server.makeDatabase()
    let proxy = try await CuttableProxy(to: configuration.port)
    configuration.port = proxy.port
    let node = PostgresLogEngine(configuration: configuration)
    try await node.claimNode("n", of: "lane")
    #expect(try await node.append([Self.record("n", 1)], to: "lane") == [1])
    await proxy.cut()
    // The appends come once the listening connection is back, its claim retaken.
    for number: UInt64 in 2...20 {
      #expect(try await node.append([Self.record("n", number)], to: "lane") == [number])
    }
    let other = PostgresLogEngine(
      configuration: server.configuration(database: configuration.database))
    await #expect(
      throws: SharedLaneError(.nodeInUse(node: "n", lane: "lane"), operation: "claim a node name")
    ) {
      try await other.claimNode("n", of: "lane")
    }
    await other.close()
    await node.close()
    await proxy.close()
  }

  /// A database of one lane, as an earlier engine made it, becomes the lane named by default:
  /// its entries, head and snapshots; the other lanes start empty.
  @Test func aLogOfOneLaneBecomesTheDefaultLane() async throws {
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    for statement: PostgresQuery in [
      """
      CREATE TABLE sluice_log (sequence bigint PRIMARY KEY, origin text NOT NULL,
        origin_sequence bigint NOT NULL, name text NOT NULL, payload bytea NOT NULL,
        UNIQUE (origin, origin_sequence))
      """,
      "CREATE TABLE sluice_lane_head (id int PRIMARY KEY, sequence bigint NOT NULL)",
      "CREATE TABLE sluice_snapshot (sequence bigint PRIMARY KEY, hash bigint NOT NULL, body bytea NOT NULL)",
      "INSERT INTO sluice_log VALUES (1, 'a', 1, 'test.add', ''), (2, 'b', 1, 'test.add', 'x')",
      "INSERT INTO sluice_lane_head VALUES (1, 2)",
    ] {
      try await server.execute(statement, in: configuration.database)
    }
    let snapshot = SharedSnapshot(sequence: 2, states: [:], origins: ["a": 1, "b": 1])
    let body = try JSONEncoder().encode(snapshot)
    try await server.withConnection(to: configuration.database) { connection in
      _ = try await connection.query(
        "INSERT INTO sluice_snapshot VALUES (2, 0, \(body))", logger: PostgresServer.logger)
    }
    let log = PostgresLogEngine(configuration: configuration)
    #expect(try await log.head(of: "other") == 0)
    #expect(try await log.head(of: "default") == 2)
    #expect(
      try await log.entries(of: "default", after: 0, limit: 10).map(\.record) == [
        Self.record("a", 1), Self.record("b", 1, "x"),
      ])
    #expect(try await log.latestSnapshot(of: "default") == snapshot)
    #expect(try await log.append([Self.record("a", 2)], to: "default") == [3])
    #expect(try await log.append([Self.record("a", 1)], to: "other") == [1])
    await log.close()
  }

  /// Issue 25, an idle lane costs nothing: once a wait of the reader found the lane without new
  /// entries, its follower's round (a read, then a wait that times out) sends nothing to the
  /// server, round after round; an append by another engine still wakes the wait, and the read
  /// after it sees the entry. The reader reaches the server through a proxy that counts the
  /// bytes sent, and its clock moves only when the test advances it.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a wait nothing ended.
  func anIdleLaneSendsNothingToTheServerUntilAnAppend() async throws {
    let server = try PostgresServer.required
    let proxy = try await CuttableProxy(to: server.port)
    var configuration = try await server.makeDatabase(timeout: .seconds(600))
    let writer = PostgresLogEngine(configuration: configuration)
    let clock = SteppedClock()
    configuration.port = proxy.port
    configuration.clock = clock
    let reader = PostgresLogEngine(configuration: configuration)
    #expect(try await writer.append([Self.record("w", 1)], to: "room") == [1])
    #expect(try await reader.head(of: "room") == 1)  // Once the reader listens.
    var sleeps = clock.sleeps.makeAsyncIterator()
    var sentBefore: [Int] = []
    for _ in 0..<10 {
      sentBefore.append(proxy.sentToServer)
      #expect(try await reader.entries(of: "room", after: 1, limit: 10).isEmpty)
      let deadline = clock.now.advanced(by: .seconds(1))
      let wait = Task {
        try await reader.waitForEntries(of: "room", after: 1, timeout: .seconds(1))
      }
      // The wait's first pause (the listener's own pauses end later).
      while let next = await sleeps.next(), next > deadline {}
      clock.advance(by: clock.now.duration(to: deadline))
      try await wait.value
    }
    // The first round asked for the head; the others asked nothing.
    let sent = zip(sentBefore.dropFirst(), sentBefore.dropFirst(2)).map { $1 - $0 }
    #expect(sent.allSatisfy { $0 == 0 }, "bytes sent in each round after the first: \(sent)")

    let wait = Task {
      try await reader.waitForEntries(of: "room", after: 1, timeout: .seconds(600))
    }
    #expect(try await writer.append([Self.record("w", 2)], to: "room") == [2])
    try await wait.value
    #expect(try await reader.entries(of: "room", after: 1, limit: 10).map(\.sequence) == [2])
    await reader.close()
    await writer.close()
    await proxy.close()
  }

  /// An entry whose notification never came (its appender died between its commit and its
  /// notification, which the engine sends after the commit) wakes a quiet lane's wait at the
  /// listener's next check of the quiet lanes' heads, 30 s on the reader's clock, which moves
  /// only when the test advances it.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a wait nothing ended.
  func anEntryWhoseNotificationWasLostWakesTheWaitAtTheNextCheck() async throws {
    let server = try PostgresServer.required
    var configuration = try await server.makeDatabase(timeout: .seconds(600))
    let writer = PostgresLogEngine(configuration: configuration)
    let clock = SteppedClock()
    configuration.clock = clock
    let reader = PostgresLogEngine(configuration: configuration)
    #expect(try await writer.append([Self.record("w", 1)], to: "room") == [1])
    #expect(try await reader.head(of: "room") == 1)  // Once the reader listens.
    var sleeps = clock.sleeps.makeAsyncIterator()
    let start = clock.now
    let wait = Task {
      try await reader.waitForEntries(of: "room", after: 1, timeout: .seconds(500))
    }
    // The wait sleeps until its timeout: the lane is quiet (the operations' deadlines are
    // 600 s on).
    while let next = await sleeps.next(), next != start.advanced(by: .seconds(500)) {}
    // The append function alone: committed, never notified.
    _ = try await server.execute(
      """
      SELECT sluice_append_v3('room', ARRAY['x'], ARRAY[1::bigint], ARRAY['n'],
        ARRAY['\\x00'::bytea])::text
      """, in: configuration.database)
    clock.advance(by: .seconds(30))
    try await wait.value
    #expect(clock.now == start.advanced(by: .seconds(30)))
    #expect(try await reader.entries(of: "room", after: 1, limit: 10).map(\.sequence) == [2])
    await reader.close()
    await writer.close()
  }
}
