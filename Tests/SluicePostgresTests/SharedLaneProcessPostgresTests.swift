import Foundation
import PostgresNIO
import Sluice
import SluicePostgresTestSupport
import SluiceTestSupport
import Testing

@testable import SluicePostgres

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Processes sharing two lanes through one PostgreSQL database (issues 15 and 25): in each lane,
/// two nodes (`SluiceCrashProbe --shared-lane --postgres … --lane NAME`,
/// Tests/SluiceCrashProbe/SharedLaneProbe.swift, numbered alike in both lanes) append 300 actions
/// each, in bursts with pauses, while the test kills a node with SIGKILL in the middle of an
/// append and restarts it, terminates another node's connections on the server
/// (`pg_terminate_backend`), stops the server as a crash would (`pg_ctl stop -m immediate`) while
/// the nodes wait for it and starts it again, then kills and restarts a node once more. Each
/// lane on its own must then run from 1 to N with no gap and hold each of its nodes' 300 actions
/// once each and in order, no action a killed node saw acknowledged may be missing from its
/// lane, and the nodes of a lane, the restarted ones too, must end with the same digest of its
/// log.
///
/// A server of its own: stopping it would break any test beside.
@Suite(.requiresPostgres, .postgresServer)
struct SharedLaneProcessPostgresTests {
  static let lanes = ["default", "room"]
  /// Nodes per lane.
  static let nodes = 2
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
    // One folder of outputs per lane: the node numbers repeat.
    let folders = try Self.lanes.map { _ in try TemporaryFolder(prefix: "sluice-shared-postgres") }
    defer { for folder in folders { folder.remove() } }
    // A process per lane and node, named by its slot on the server.
    let slots = Self.lanes.indices.flatMap { lane in (0..<Self.nodes).map { (lane, $0) } }
    var restarts = Array(repeating: 0, count: slots.count)
    func start(_ slot: Int) throws -> SharedLaneProbeRun {
      defer { restarts[slot] += 1 }
      let (lane, node) = slots[slot]
      let url =
        "postgres://\(PostgresServer.user)@127.0.0.1:\(server.port)/\(configuration.database)"
        + "?application_name=\(Self.applicationName(of: slot))"
      return try SharedLaneProbeRun(
        node: node, run: restarts[slot], probe: probe,
        arguments: [
          "--shared-lane", "--postgres", url, "\(node)", "\(Self.nodes)", "\(Self.count)",
          // Pauses of up to 1 s: a node then appends for about 10 s, long enough for the
          // test, starved beside the whole suite on a busy machine, to catch each node
          // mid-append (with up to 300 ms, the nodes ran for 3 s once appends of several lanes
          // shared the server's flushes, and a run under load found none still appending).
          "--pause-ms", "1000", "--lane", Self.lanes[lane],
        ], folder: folders[lane])
    }
    var runs = try slots.indices.map(start)
    defer {
      for run in runs where run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
    }
    /// Kills the run of `slot` and starts it again, noting a lost acknowledgement.
    func restart(_ slot: Int) async throws -> String? {
      await runs[slot].kill()
      let lost = try await runs[slot].lostAcknowledgement(in: log, lane: Self.lanes[slots[slot].0])
      runs[slot] = try start(slot)
      return lost
    }
    var lostAcknowledgements: [String] = []

    // A node killed in the middle of an append once a quarter of its actions are in, and
    // restarted.
    let clock = ContinuousClock()
    let began = clock.now
    var events: [String] = []
    let first = try #require(await Self.appending(runs, acked: Self.count / 4, midAppend: true))
    events.append("process \(first) killed at \(runs[first].lines.last ?? "")")
    lostAcknowledgements += [try await restart(first)].compactMap { $0 }

    // Another node's connections, terminated by the server.
    let cut = try #require(await Self.appending(runs, acked: Self.count / 3, except: first))
    let terminated = try await server.execute(
      """
      SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
      WHERE application_name = \(Self.applicationName(of: cut))
      """, in: "postgres")
    #expect(terminated.contains("true"), "no connection of process \(cut) to terminate")
    events.append("\(terminated.count) connections of process \(cut) terminated")

    // The server crashes while the nodes append, and starts again once every node still
    // appending waits for it.
    _ = try #require(await Self.appending(runs, acked: Self.count / 2))
    try await server.stop()
    let stopped = clock.now
    // A restarted node that printed nothing yet is starting: it waits for the server too.
    let waiting = await Self.waitUntil {
      runs.allSatisfy {
        !$0.process.isRunning || $0.acked == Self.count || $0.isSending || $0.lines.isEmpty
      }
    }
    try await server.start()
    events.append("server down \(stopped.duration(to: clock.now)), every node waiting: \(waiting)")
    #expect(waiting, "some node did not wait for the server: \(runs.map(\.lines.last))")

    // One more kill in the middle of an append, after the restart.
    let second = try #require(await Self.appending(runs, acked: 0, midAppend: true))
    events.append("process \(second) killed at \(runs[second].lines.last ?? "")")
    lostAcknowledgements += [try await restart(second)].compactMap { $0 }

    let ended = await Self.waitUntil { !runs.contains { $0.process.isRunning } }
    #expect(ended, "the nodes did not finish within the hang guard: \(runs.map(\.lines.last))")
    #expect(lostAcknowledgements.isEmpty, "\(lostAcknowledgements)")
    for (index, lane) in Self.lanes.enumerated() {
      let problems = try await SharedLaneProbeRun.problems(
        in: log, lane: lane, runs: runs.indices.filter { slots[$0].0 == index }.map { runs[$0] },
        nodes: Self.nodes, count: Self.count)
      #expect(problems.isEmpty, "lane \(lane): \(problems)")
    }
    print(
      "shared lanes on PostgreSQL, \(Self.lanes.count) lanes × \(Self.nodes) processes × "
        + "\(Self.count) actions in "
        + "\(began.duration(to: clock.now)): \(events.joined(separator: "; "))")
    await log.close()
  }

  /// The name the connections of the process in `slot` show in `pg_stat_activity`.
  static func applicationName(of slot: Int) -> String { "sluice-probe-process\(slot)" }

  /// The index of the first run, other than `except`, that is still appending with at least
  /// `acked` actions acknowledged, and (with `midAppend`) waits for a flush at that moment;
  /// looked for every millisecond for ``hangGuard``, `nil` when none came.
  static func appending(
    _ runs: [SharedLaneProbeRun], acked: Int, midAppend: Bool = false, except: Int? = nil
  ) async -> Int? {
    var found: Int?
    _ = await waitUntil(every: .milliseconds(1)) {
      found = runs.indices.first { slot in
        let run = runs[slot]
        let progress = run.acked
        // Mid-append: still sending. Otherwise any running node past `acked` will do: on a
        // loaded machine the others may have appended all their actions already, and a node
        // that did still follows the log (its connections are still there to cut).
        return slot != except && run.process.isRunning && progress >= acked
          && (!midAppend || (progress < count && run.isSending))
      }
      return found != nil
    }
    return found
  }

  /// Whether `condition` holds within ``hangGuard``, checked every `interval`.
  static func waitUntil(
    every interval: Duration = .milliseconds(10), _ condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: hangGuard)
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: interval)
    }
    return true
  }
}
