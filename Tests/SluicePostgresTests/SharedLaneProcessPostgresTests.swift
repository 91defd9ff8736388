import Foundation
import PostgresNIO
import Sluice
import SluicePostgres
import SluicePostgresTestSupport
import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Processes sharing one lane through a PostgreSQL database (issue 15): four nodes
/// (`SluiceCrashProbe --shared-lane --postgres`, Tests/SluiceCrashProbe/SharedLaneProbe.swift)
/// append 300 actions each, in bursts with pauses, while the test kills a node with SIGKILL in
/// the middle of an append and restarts it, terminates another node's connections on the server
/// (`pg_terminate_backend`), stops the server as a crash would (`pg_ctl stop -m immediate`) while
/// the nodes wait for it and starts it again, then kills and restarts a node once more. The log
/// must then run from 1 to N with no gap and hold each node's 300 actions once each and in order,
/// no action a killed node saw acknowledged may be missing, and every node, the restarted ones
/// too, must end with the same digest of the log.
///
/// A server of its own: stopping it would break any test beside.
@Suite(.requiresPostgres, .postgresServer)
struct SharedLaneProcessPostgresTests {
  static let nodes = 4
  static let count = 300

  // The time limit, and each wait below, is a hang guard: its expiry means a node that never
  // got on, not a slow machine.
  @Test(.timeLimit(.minutes(10)))
  func nodeProcessesShareOneLogThroughKillsLostConnectionsAndAServerCrash() async throws {
    let probe = try #require(
      SharedLaneProbeRun.locateProbe(),
      "SluiceCrashProbe not found next to the test binary; build it with `swift build --build-tests`"
    )
    let server = try PostgresServer.required
    let configuration = try await server.makeDatabase()
    let log = PostgresLogEngine(configuration: configuration)
    _ = try await log.head()  // The tables, before the race.
    let folder = try TemporaryFolder(prefix: "sluice-shared-postgres")
    defer { folder.remove() }
    var restarts = Array(repeating: 0, count: Self.nodes)
    func start(_ node: Int) throws -> SharedLaneProbeRun {
      defer { restarts[node] += 1 }
      let url =
        "postgres://\(PostgresServer.user)@127.0.0.1:\(server.port)/\(configuration.database)"
        + "?application_name=\(Self.applicationName(of: node))"
      return try SharedLaneProbeRun(
        node: node, run: restarts[node], probe: probe,
        arguments: [
          "--shared-lane", "--postgres", url, "\(node)", "\(Self.nodes)", "\(Self.count)",
          "--pause-ms", "300",
        ], folder: folder)
    }
    var runs = try (0..<Self.nodes).map(start)
    defer {
      for run in runs where run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
    }
    var lostAcknowledgements: [String] = []

    // A node killed in the middle of an append once a quarter of its actions are in, and
    // restarted.
    let clock = ContinuousClock()
    let began = clock.now
    var events: [String] = []
    let first = try #require(await Self.appending(runs, acked: Self.count / 4, midAppend: true))
    events.append("node \(first.node) killed at \(first.lines.last ?? "")")
    await first.kill()
    lostAcknowledgements += [try await first.lostAcknowledgement(in: log)].compactMap { $0 }
    runs[first.node] = try start(first.node)

    // Another node's connections, terminated by the server.
    let cut = try #require(await Self.appending(runs, acked: Self.count / 3, except: first.node))
    let terminated = try await server.execute(
      """
      SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
      WHERE application_name = \(Self.applicationName(of: cut.node))
      """, in: "postgres")
    #expect(terminated.contains("true"), "no connection of node \(cut.node) to terminate")
    events.append("\(terminated.count) connections of node \(cut.node) terminated")

    // The server crashes while the nodes append, and starts again once every node still
    // appending waits for it.
    _ = try #require(await Self.appending(runs, acked: Self.count / 2))
    try await server.stop()
    let stopped = clock.now
    // A restarted node that printed nothing yet is starting: it waits for the server too.
    let waiting = await Self.waitUntil(seconds: 60) {
      runs.allSatisfy {
        !$0.process.isRunning || $0.acked == Self.count || $0.isSending || $0.lines.isEmpty
      }
    }
    try await server.start()
    events.append("server down \(stopped.duration(to: clock.now)), every node waiting: \(waiting)")
    #expect(waiting, "some node did not wait for the server: \(runs.map(\.lines.last))")

    // One more kill in the middle of an append, after the restart.
    let second = try #require(await Self.appending(runs, acked: 0, midAppend: true))
    events.append("node \(second.node) killed at \(second.lines.last ?? "")")
    await second.kill()
    lostAcknowledgements += [try await second.lostAcknowledgement(in: log)].compactMap { $0 }
    runs[second.node] = try start(second.node)

    let ended = await Self.waitUntil(seconds: 300) { !runs.contains { $0.process.isRunning } }
    #expect(ended, "the nodes did not finish within 300 s: \(runs.map(\.lines.last))")
    #expect(lostAcknowledgements.isEmpty, "\(lostAcknowledgements)")
    let problems = try await SharedLaneProbeRun.problems(
      in: log, runs: runs, nodes: Self.nodes, count: Self.count)
    #expect(problems.isEmpty, "\(problems)")
    print(
      "shared lane on PostgreSQL, \(Self.nodes) processes × \(Self.count) actions in "
        + "\(began.duration(to: clock.now)): \(events.joined(separator: "; "))")
    await log.close()
  }

  /// The name node `node`'s connections show in `pg_stat_activity`.
  static func applicationName(of node: Int) -> String { "sluice-probe-node\(node)" }

  /// The first run, other than node `except`'s, that is still appending with at least `acked`
  /// actions acknowledged, and (with `midAppend`) waits for a flush at that moment; looked for
  /// every millisecond for 60 s, `nil` when none came.
  static func appending(
    _ runs: [SharedLaneProbeRun], acked: Int, midAppend: Bool = false, except: Int? = nil
  ) async -> SharedLaneProbeRun? {
    var found: SharedLaneProbeRun?
    _ = await waitUntil(seconds: 60, every: .milliseconds(1)) {
      found = runs.first { run in
        let progress = run.acked
        // Mid-append: still sending. Otherwise any running node past `acked` will do: on a
        // loaded machine the others may have appended all their actions already, and a node
        // that did still follows the log (its connections are still there to cut).
        return run.node != except && run.process.isRunning && progress >= acked
          && (!midAppend || (progress < count && run.isSending))
      }
      return found != nil
    }
    return found
  }

  /// Whether `condition` holds within `seconds`, checked every `interval`.
  static func waitUntil(
    seconds: Int, every interval: Duration = .milliseconds(10), _ condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: interval)
    }
    return true
  }
}
