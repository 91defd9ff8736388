import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Processes sharing two lanes through one SQLite file (issues 15 and 25): in each lane, two
// nodes (Tests/SluiceCrashProbe/SharedLaneProbe.swift, named alike in both lanes) each append
// 250 actions in bursts, while the test kills a random node that is still appending with
// SIGKILL every 2–12 ms and restarts it, at least 20 times (over more than one round when the
// nodes finish first). Then each lane on its own must run from 1 to N with no gap, hold each of
// its nodes' 250 actions once each and in order, hold every action a killed node had seen
// acknowledged, and its nodes must end with the same digest of its log.

@Suite struct SharedLaneProcessTests {
  static let lanes = ["default", "room"]
  static let nodes = 2
  static let count = 250
  static let kills = 20

  /// One run of a node's process in `lane`, its output in `folder`.
  static func start(
    lane: String, node: Int, run: Int, probe: URL, database: String, folder: TemporaryFolder
  ) throws -> SharedLaneProbeRun {
    try SharedLaneProbeRun(
      node: node, run: run, probe: probe,
      arguments: [
        "--shared-lane", database, "\(node)", "\(Self.nodes)", "\(Self.count)", "--lane", lane,
      ],
      folder: folder)
  }

  @Test(.timeLimit(.minutes(10)))
  func killedProcessesOfTwoLanesShareEachLanesContiguousLogAndState() async throws {
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
    print(
      "shared lanes, 2 lanes × 2 processes × 250 actions: \(killed) kills mid-append in \(rounds) rounds"
    )
  }

  /// One round: the nodes of both lanes from an empty file to the end, killed at random;
  /// returns how many were killed before they finished appending.
  func round(probe: URL) async throws -> Int {
    let folder = try TemporaryFolder(prefix: "sluice-shared")
    defer { folder.remove() }
    let database = folder.path("lanes.sqlite")
    let log = try SQLiteLogEngine(path: database)  // The file and its tables, before the race.
    // One folder of outputs per lane: the node numbers repeat.
    let outputs = try Self.lanes.map { _ in try TemporaryFolder(prefix: "sluice-shared-out") }
    defer { for output in outputs { output.remove() } }
    let slots = Self.lanes.indices.flatMap { lane in (0..<Self.nodes).map { (lane, $0) } }
    var runs = try slots.map { lane, node in
      try Self.start(
        lane: Self.lanes[lane], node: node, run: 0, probe: probe, database: database,
        folder: outputs[lane])
    }
    defer {
      for run in runs where run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
    }
    var restarts = Array(repeating: 0, count: slots.count)
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
        let slot = runs.indices.filter({ runs[$0].process.isRunning && runs[$0].acked < Self.count }
        )
        .randomElement()
      else { break }
      let (lane, node) = slots[slot]
      await runs[slot].kill()
      killed += 1
      if let lost = try await runs[slot].lostAcknowledgement(in: log, lane: Self.lanes[lane]) {
        lostAcknowledgements.append(lost)
      }
      restarts[slot] += 1
      runs[slot] = try Self.start(
        lane: Self.lanes[lane], node: node, run: restarts[slot], probe: probe,
        database: database, folder: outputs[lane])
    }
    for run in runs { await run.waitForExit() }
    #expect(lostAcknowledgements.isEmpty, "\(lostAcknowledgements)")
    for (index, lane) in Self.lanes.enumerated() {
      let problems = try await SharedLaneProbeRun.problems(
        in: log, lane: lane, runs: runs.indices.filter { slots[$0].0 == index }.map { runs[$0] },
        nodes: Self.nodes, count: Self.count)
      #expect(problems.isEmpty, "lane \(lane): \(problems)")
    }
    return killed
  }
}
