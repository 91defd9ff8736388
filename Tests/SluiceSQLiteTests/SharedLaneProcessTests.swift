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
  final class NodeRun {
    let node: Int
    let process = Process()
    let output: String
    let errors: String

    init(node: Int, run: Int, probe: URL, database: String, folder: TemporaryFolder) throws {
      self.node = node
      output = folder.path("node\(node)-run\(run).out")
      errors = folder.path("node\(node)-run\(run).err")
      _ = FileManager.default.createFile(atPath: output, contents: nil)
      _ = FileManager.default.createFile(atPath: errors, contents: nil)
      process.executableURL = probe
      process.arguments = [
        "--shared-lane", database, "\(node)", "\(SharedLaneProcessTests.nodes)",
        "\(SharedLaneProcessTests.count)",
      ]
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
      process.standardInput = FileHandle.nullDevice
      try process.run()
    }

    var lines: [String] {
      ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        .split(separator: "\n").map(String.init)
    }

    /// The highest `acked` the run printed.
    var acked: Int {
      lines.compactMap { $0.hasPrefix("acked ") ? Int($0.dropFirst(6)) : nil }.max() ?? 0
    }

    var final: String? {
      lines.first { $0.hasPrefix("final ") }.map { String($0.dropFirst(6)) }
    }

    var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    func kill() async {
      if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
      await waitForExit()
    }

    func waitForExit() async {
      while process.isRunning { try? await Task.sleep(for: .milliseconds(1)) }
    }
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
      try NodeRun(node: $0, run: 0, probe: probe, database: database, folder: folder)
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
      let acked = victim.acked
      let inLog = try await Self.appends(in: log).filter { $0.node == victim.node }.count
      if inLog < acked {
        lostAcknowledgements.append("node \(victim.node): acked \(acked), \(inLog) in the log")
      }
      restarts[victim.node] += 1
      runs[victim.node] = try NodeRun(
        node: victim.node, run: restarts[victim.node], probe: probe, database: database,
        folder: folder)
    }
    for run in runs { await run.waitForExit() }
    for run in runs {
      #expect(run.process.terminationStatus == 0, "node \(run.node): \(run.stderr)")
    }
    #expect(lostAcknowledgements.isEmpty, "\(lostAcknowledgements)")

    let entries = try await log.entries(after: 0, limit: 1_000_000)
    #expect(entries.map(\.sequence) == Array(1...UInt64(entries.count)))
    let appends = try await Self.appends(in: log)
    for node in 0..<Self.nodes {
      #expect(appends.filter { $0.node == node }.map(\.index) == Array(0..<Self.count))
    }
    let finals = Set(runs.compactMap(\.final))
    #expect(finals.count == 1, "\(runs.map { $0.final ?? "none" })")
    return killed
  }

  /// The probe's appends in the log, in order.
  static func appends(in log: SQLiteLogEngine) async throws -> [(node: Int, index: Int)] {
    struct Append: Decodable {
      let node: Int
      let index: Int
    }
    return try await log.entries(after: 0, limit: 1_000_000)
      .filter { $0.record.name == "probe.append" }
      .map { entry in
        let append = try JSONDecoder().decode(Append.self, from: entry.record.payload)
        return (append.node, append.index)
      }
  }
}
