import Foundation
import Sluice
import SluiceSQLite
import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Processes sharing one lane through an SQLite file (issue 15): four nodes (Sources/
// SluiceCrashProbe/SharedLaneProbe.swift) each append 500 actions in bursts, while the test
// kills a random node that is still appending with SIGKILL every 2–12 ms and restarts it, at
// least 20 times (over more than one round when the nodes finish first). Then the
// log must run from 1 to N with no gap, hold each node's 500 actions once each and in order,
// hold every action a killed node had seen acknowledged, and every node must end with the same
// digest of the log.

@Suite struct SharedLaneProcessTests {
  static let nodes = 4
  static let count = 500
  static let kills = 20

  /// One run of a node's process.
  static func start(node: Int, run: Int, probe: URL, database: String, folder: TemporaryFolder)
    throws -> SharedLaneProbeRun
  {
    try SharedLaneProbeRun(
      node: node, run: run, probe: probe,
      arguments: ["--shared-lane", database, "\(node)", "\(Self.nodes)", "\(Self.count)"],
      folder: folder)
  }

  @Test(.timeLimit(.minutes(3)))
  func killedProcessesShareOneContiguousLogAndReachTheSameState() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    // Nodes may finish before 20 kills on a fast machine: then another round starts, on a new
    // file, until 20 nodes were killed before they finished appending.
    var killed = 0
    var rounds = 0
    while killed < Self.kills, rounds < 10 {
      rounds += 1
      killed += try await round(probe: probe)
    }
    #expect(killed >= Self.kills)
    print("shared lane, 4 processes × 500 actions: \(killed) kills mid-append in \(rounds) rounds")
  }

  /// One round: four nodes from an empty file to the end, killed at random; returns how many
  /// were killed before they finished appending.
  func round(probe: URL) async throws -> Int {
    let folder = try TemporaryFolder(prefix: "sluice-shared")
    defer { folder.remove() }
    let database = folder.path("lane.sqlite")
    let log = try SQLiteLogEngine(path: database)  // The file and its tables, before the race.
    var runs = try (0..<Self.nodes).map {
      try Self.start(node: $0, run: 0, probe: probe, database: database, folder: folder)
    }
    defer {
      for run in runs where run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
    }
    var restarts = Array(repeating: 0, count: Self.nodes)
    var killed = 0
    var lostAcknowledgements: [String] = []
    while killed < Self.kills {
      try await Task.sleep(for: .milliseconds(Int.random(in: 2...12)))
      if let exited = runs.first(where: { !$0.process.isRunning && $0.final == nil }) {
        Issue.record("node \(exited.node) exited: \(exited.stderr)")
        return killed
      }
      // Only nodes still appending: a kill must fall among appends.
      guard
        let victim = runs.filter({ $0.process.isRunning && $0.acked < Self.count })
          .randomElement()
      else { break }
      await victim.kill()
      killed += 1
      if let lost = try await victim.lostAcknowledgement(in: log) {
        lostAcknowledgements.append(lost)
      }
      restarts[victim.node] += 1
      runs[victim.node] = try Self.start(
        node: victim.node, run: restarts[victim.node], probe: probe, database: database,
        folder: folder)
    }
    for run in runs { await run.waitForExit() }
    #expect(lostAcknowledgements.isEmpty, "\(lostAcknowledgements)")
    let problems = try await SharedLaneProbeRun.problems(
      in: log, runs: runs, nodes: Self.nodes, count: Self.count)
    #expect(problems.isEmpty, "\(problems)")
    return killed
  }
}
