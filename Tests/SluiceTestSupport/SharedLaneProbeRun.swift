import Foundation
import Sluice

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of a node of `SluiceCrashProbe --shared-lane` (Tests/SluiceCrashProbe/
/// SharedLaneProbe.swift) as a process of its own, its output in files of a folder: what the
/// multi-process tests of the shared lane start, kill and restart.
///
/// ```swift
/// let run = try SharedLaneProbeRun(
///   node: 0, run: 0, probe: probe, arguments: ["--shared-lane", path, "0", "4", "500"],
///   folder: folder)
/// await run.kill()
/// ```
public final class SharedLaneProbeRun {
  /// The node's number.
  public let node: Int
  /// The process.
  public let process = Process()
  private let output: String
  private let errors: String

  /// Starts the probe with `arguments`, its outputs in `node<node>-run<run>.out` and `.err`
  /// of `folder`.
  public init(
    node: Int, run: Int, probe: URL, arguments: [String], folder: TemporaryFolder
  ) throws {
    self.node = node
    output = folder.path("node\(node)-run\(run).out")
    errors = folder.path("node\(node)-run\(run).err")
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    process.executableURL = probe
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
    process.standardInput = FileHandle.nullDevice
    try process.run()
  }

  /// The probe, built with the package: `SLUICE_CRASH_PROBE`, else the one the build made.
  public static func locateProbe() -> URL? {
    BuiltExecutable.locate("SluiceCrashProbe", override: "SLUICE_CRASH_PROBE")
  }

  /// What the run printed so far, line by line.
  public var lines: [String] {
    ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
  }

  /// The highest `acked` the run printed: every index below it is in the log.
  public var acked: Int { highest("acked") }

  /// The highest number the run printed after `word` and a space (`acked`, `durable`); 0 if
  /// none.
  public func highest(_ word: String) -> Int {
    lines.compactMap { line in
      line.hasPrefix(word + " ") ? Int(line.dropFirst(word.count + 1)) : nil
    }.max() ?? 0
  }

  /// Waits (at most `timeout`) until the run printed a line that satisfies `printed`, or
  /// ended; returns whether it printed one.
  public func wait(timeout: Duration, until printed: (String) -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
      if lines.contains(where: printed) { return true }
      if !process.isRunning { break }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return lines.contains(where: printed)
  }

  /// Whether the run's last line is `sending`: it waits for a flush, in the middle of an
  /// append.
  public var isSending: Bool { lines.last?.hasPrefix("sending ") ?? false }

  /// The digest the run printed once every node's appends were applied, if it did.
  public var final: String? {
    lines.first { $0.hasPrefix("final ") }.map { String($0.dropFirst(6)) }
  }

  /// What the run wrote to its standard error.
  public var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

  /// Kills the process with SIGKILL, and returns once it ended.
  public func kill() async {
    if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
    await waitForExit()
  }

  /// Returns once the process ended.
  public func waitForExit() async {
    while process.isRunning { try? await Task.sleep(for: .milliseconds(1)) }
  }

  /// The probe's appends in `lane` of `log`, in log order.
  public static func appends(
    in log: some SharedLogEngine, lane: String = "default"
  ) async throws -> [(node: Int, index: Int)] {
    return try await log.entries(of: lane, after: 0, limit: 1_000_000)
      .filter { $0.record.name == "probe.append" }
      .map { entry in
        let append = try JSONDecoder().decode(ProbeAppend.self, from: entry.record.payload)
        return (append.node, append.index)
      }
  }

  /// Says so when `log` holds fewer of this node's appends than the run printed as acked (an
  /// acknowledged action was lost); `nil` otherwise. Call it once the run ended.
  public func lostAcknowledgement(
    in log: some SharedLogEngine, lane: String = "default"
  ) async throws -> String? {
    let acked = self.acked
    let inLog = try await Self.appends(in: log, lane: lane).filter { $0.node == node }.count
    return inLog < acked ? "lane \(lane), node \(node): acked \(acked), \(inLog) in the log" : nil
  }

  /// What the last runs of `nodes` nodes of `lane` that appended `count` actions each break of
  /// the shared lane's promises, in words; empty when nothing: every run ended with status 0 and printed
  /// the same digest, and the log runs from 1 to N with no gap and holds each node's appends
  /// once each, in order.
  public static func problems(
    in log: some SharedLogEngine, lane: String = "default",
    runs: [SharedLaneProbeRun], nodes: Int, count: Int
  ) async throws -> [String] {
    var found: [String] = []
    for run in runs where run.process.isRunning || run.process.terminationStatus != 0 {
      found.append("node \(run.node) did not end well: \(run.stderr)")
    }
    let finals = runs.map { $0.final ?? "none" }
    if Set(finals).count != 1 || finals.contains("none") {
      found.append("the nodes ended with different digests: \(finals)")
    }
    let entries = try await log.entries(of: lane, after: 0, limit: 1_000_000)
    if entries.map(\.sequence) != Array(1...UInt64(max(entries.count, 1))) {
      found.append("the log is not contiguous from 1: \(entries.map(\.sequence))")
    }
    let appends = try await appends(in: log, lane: lane)
    for node in 0..<nodes {
      let indexes = appends.filter { $0.node == node }.map(\.index)
      if indexes != Array(0..<count) {
        found.append("node \(node)'s appends are not 0..<\(count) once each: \(indexes)")
      }
    }
    return found
  }
}

/// An action of the probe, as its log entries hold it.
private struct ProbeAppend: Decodable {
  let node: Int
  let index: Int
}
