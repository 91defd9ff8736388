import Foundation
import PostgresNIO
import Sluice
import SluicePostgresTestSupport
import SluiceTestSupport
import Testing

@testable import SluicePostgres

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

  /// Issue 25, fault 5: once the server is back after an immediate stop, the engine listens
  /// again at once, so the next append wakes a wait without the wait sitting out a pause. The
  /// reader's clock never moves across the outage: a wait woken by anything but a notification
  /// would hold, and so would a listening connection that waits on that clock to come back.
  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a wait nothing ended.
  func aWaitAfterTheServerRestartsIsWokenByTheNextAppendWithoutAPause() async throws {
    let server = try PostgresServer.required
    let still = SteppedClock()
    var configuration = try await server.makeDatabase(timeout: .seconds(600))
    let writer = PostgresLogEngine(configuration: configuration)
    configuration.clock = still
    let reader = PostgresLogEngine(configuration: configuration)
    #expect(try await writer.head() == 0)
    // A pause between two looks at the log, `base` on: 1 ms, doubling, up to 50 ms while the
    // reader does not listen; the wait's whole timeout once it does (the reconnection pauses,
    // the listener's checks and the operations' deadlines are other lengths).
    func isLookPause(_ deadline: EngineInstant, after base: EngineInstant) -> Bool {
      base.advanced(by: .seconds(600)) == deadline
        || (0...5).contains { base.advanced(by: .milliseconds(1 << $0)) == deadline }
    }
    // One iterator for the whole test: a stream ends when its iterator goes.
    var sleeps = still.sleeps.makeAsyncIterator()
    /// Returns once a pause between two looks at the log starts, `base` on.
    func nextLookPause(after base: EngineInstant) async {
      while let deadline = await sleeps.next(), !isLookPause(deadline, after: base) {}
    }
    let start = still.now
    let first = Task { try await reader.waitForEntries(after: 0, timeout: .seconds(600)) }
    await nextLookPause(after: start)
    #expect(try await writer.append([Self.record("a", 1)]) == [1])
    // On a clock that does not move, only a notification ends the wait: the reader listens.
    try await first.value
    // Every pause so far is over; the pauses after the restart start an hour on.
    still.advance(by: .seconds(3_600))
    let restart = still.now

    try await server.stop()
    try await server.start()
    let second = Task { try await reader.waitForEntries(after: 1, timeout: .seconds(600)) }
    // The reader read the log after the restart (entry 1), and pauses before its next look.
    await nextLookPause(after: restart)
    #expect(try await writer.append([Self.record("a", 2)]) == [2])
    let woken = try await Self.within(hangGuard) { try await second.value }
    #expect(woken, "the append after the restart did not wake the wait within the hang guard")
    second.cancel()
    #expect(still.now == restart)
    await reader.close()
    await writer.close()
  }

  /// Whether `body` returns within `limit` (real time): a hang guard, whose expiry means a
  /// wait nothing ends.
  static func within(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> Void
  ) async throws -> Bool {
    try await withThrowingTaskGroup(of: Bool.self) { group in
      group.addTask {
        try await body()
        return true
      }
      group.addTask {
        try await Task.sleep(for: limit)
        return false
      }
      defer { group.cancelAll() }
      return try await group.next() ?? false
    }
  }

  @Test func appendsFailWhileTheServerIsDownAndWorkOnceItIsBack() async throws {
    let server = try PostgresServer.required
    // A hang guard: a stopped server refuses at once, and the one started again may be slow
    // to answer on a loaded machine.
    let configuration = try await server.makeDatabase(timeout: hangGuard)
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
      try await reader.waitForEntries(after: 1, timeout: hangGuard)
    }
    try await server.start()
    let waiter = Task { try await reader.waitForEntries(after: 1, timeout: hangGuard) }
    #expect(try await log.append([Self.record("a", 2), Self.record("a", 3)]) == [2, 3])
    try await waiter.value
    let entries = try await reader.entries(after: 0, limit: 100)
    #expect(entries.map(\.sequence) == [1, 2, 3])
    #expect(entries.map(\.record.originSequence) == [1, 2, 3])
    await log.close()
    await reader.close()
  }
}
