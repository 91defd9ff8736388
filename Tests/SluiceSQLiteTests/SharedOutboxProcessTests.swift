import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

// A shared lane's outbox in a file (issue 15: "the local outbox survives a crash"): a node
// process (Tests/SluiceCrashProbe/OutboxProbe.swift) is killed with SIGKILL, while the log is
// locked by another process or while it appends, and a node started under its name with the
// same outbox file must append everything the killed one saw durable, each action once and in
// the order it was dispatched.

@Suite struct SharedOutboxProcessTests {
  /// Starts the probe as node `node` of the log, with its outbox.
  static func start(
    node: Int, count: Int, probe: URL, log: String, outbox: String, folder: TemporaryFolder
  ) throws -> SharedLaneProbeRun {
    try SharedLaneProbeRun(
      node: node, run: 0, probe: probe,
      arguments: ["--outbox", log, outbox, "\(node)", "\(count)"],
      folder: folder)
  }

  /// Starts node `node` in this process with the outbox file, and returns once it appended what
  /// the file kept and applied the log.
  static func restart(node: Int, log: String, outbox: String) async throws {
    let lane = try SharedLane(
      engine: try SQLiteLogEngine(path: log),
      actions: SharedActions().register(Append.self, as: "probe.append"), node: "node\(node)",
      outbox: try SQLiteOutboxStore(path: outbox))
    try await lane.start()
    try await lane.flush()
    await lane.stop()
  }

  struct Append: Action, Codable {
    let node: Int
    let index: Int
  }

  /// The indexes of `node`'s appends in the log, in log order.
  static func indexes(of node: Int, in log: String) async throws -> [Int] {
    try await SharedLaneProbeRun.appends(in: try SQLiteLogEngine(path: log))
      .filter { $0.node == node }.map(\.index)
  }

  @Test(.timeLimit(.minutes(10)))
  func actionsKeptWhileTheLogWasLockedSurviveAKillAndAreAppendedOnce() async throws {
    let probe = try #require(SharedLaneProbeRun.locateProbe(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-outbox")
    defer { folder.remove() }
    let log = folder.path("lane.sqlite")
    let outbox = folder.path("outbox.sqlite")
    _ = try SQLiteLogEngine(path: log)  // The file and its tables, before the lock.
    let holder = try await SqlWriteLockHolder.start(probe, on: log, seconds: hangGuardSeconds)
    defer { holder.kill() }

    let run = try Self.start(
      node: 0, count: 200, probe: probe, log: log, outbox: outbox, folder: folder)
    let done = await run.wait(timeout: hangGuard) { $0 == "done" }
    await run.kill()
    #expect(done, "the probe did not see its actions durable: \(run.stderr)")
    #expect(run.highest("durable") == 200)
    #expect(try await Self.indexes(of: 0, in: log).isEmpty)
    let kept = try await SQLiteOutboxStore(path: outbox).keptRecords(of: "default")
    // The 200 appends, then the barrier of the probe's flush after `done`, if it got there.
    #expect(kept.filter { $0.name == "probe.append" }.map(\.originSequence) == Array(1...200))

    await holder.stop()
    try await Self.restart(node: 0, log: log, outbox: outbox)
    #expect(try await Self.indexes(of: 0, in: log) == Array(0..<200))
    #expect(
      try await SQLiteOutboxStore(path: outbox).keptRecords(of: "default").isEmpty)
  }

  @Test(.timeLimit(.minutes(10)))
  func aNodeKilledWhileAppendingLosesNothingItSawDurableAndRepeatsNothing() async throws {
    let probe = try #require(SharedLaneProbeRun.locateProbe(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-outbox")
    defer { folder.remove() }
    let log = folder.path("lane.sqlite")
    let outbox = folder.path("outbox.sqlite")
    _ = try SQLiteLogEngine(path: log)
    var killedMidway = 0
    for node in 0..<8 {
      let run = try Self.start(
        node: node, count: 400, probe: probe, log: log, outbox: outbox, folder: folder)
      // The kill falls somewhere in the run: while it dispatches, keeps, appends, or forgets.
      _ = await run.wait(timeout: hangGuard) { $0.hasPrefix("durable ") }
      try await Task.sleep(for: .milliseconds(Int.random(in: 0...80)))
      await run.kill()
      let durable = run.highest("durable")
      #expect(run.stderr.isEmpty, "node \(node): \(run.stderr)")
      if durable < 400 { killedMidway += 1 }

      try await Self.restart(node: node, log: log, outbox: outbox)
      let indexes = try await Self.indexes(of: node, in: log)
      // Dispatched in order and kept in order: the log holds a prefix of them, each once.
      #expect(indexes == Array(0..<indexes.count), "node \(node)")
      #expect(
        indexes.count >= durable, "node \(node): durable \(durable), \(indexes.count) appended")
    }
    let kept = try await SQLiteOutboxStore(path: outbox).keptRecords(of: "default")
    #expect(kept.isEmpty)
    print("outbox: 8 nodes killed, \(killedMidway) before all their actions were durable")
  }
}
