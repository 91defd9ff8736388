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

// Crash safety (issue 5): a child process (Tests/SluiceCrashProbe) dispatches continuously
// with SQLite persistence (coalesced: 5 ms debounce, 50 ms maximum delay), awaits `flush()`
// after each burst of dispatches and then records the flushed value in a log, fsynced; the
// test kills it with SIGKILL at a random moment (100–400 ms after its first flush), then
// restores the store as a relaunched app would: it must hold at least the last recorded flush,
// and be a state the process really had (its value, last values, hash chain and padding agree).
// The probe restores what the previous round left and keeps counting, so each round also
// checks that a database recovered after a kill can be written and killed again.
//
// Killed at random, the database stood at the last recorded flush in about three rounds in
// four, and ahead of it (a background write, or a flush whose line was not written yet) in the
// others; never behind it (about 240 rounds).
// A probe that records each flush *before* awaiting it was caught in 8 of 100 rounds (the kill
// must fall inside the flush); one that records without flushing is caught every time (below).

@Suite struct SQLiteCrashSafetyTests {
  @Test(.timeLimit(.minutes(10)))
  func aKilledProcessLosesNothingUpToItsLastCompletedFlush() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let rounds = try await SqlCrashProbe.run(probe: probe, rounds: 6, in: folder)
    Self.check(rounds)
    SqlCrashProbe.summarize(rounds, as: "coalesced, flush()")
  }

  /// Write-through: what `dispatch` returned from is durable, without `flush()`.
  @Test(.timeLimit(.minutes(10)))
  func aKilledProcessInWriteThroughModeLosesNothingDispatchReturnedFrom() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let rounds = try await SqlCrashProbe.run(
      probe: probe, rounds: 3, in: folder, extraArguments: ["--write-through"])
    Self.check(rounds)
    SqlCrashProbe.summarize(rounds, as: "write-through")
  }

  static func check(_ rounds: [SqlCrashRound]) {
    var previous = 0
    for (index, round) in rounds.enumerated() {
      let label = "round \(index + 1): \(round)"
      #expect(round.restored.isConsistent, "a state the process never had: \(label)")
      #expect(round.restored.value >= round.lastFlushed, "a completed flush was lost: \(label)")
      #expect(round.probeRestored == previous, "the probe restored another state: \(label)")
      #expect(round.restored.value >= round.probeRestored, "the database went back: \(label)")
      #expect(round.flushes > 0, "the probe was killed before its first flush: \(label)")
      previous = round.restored.value
    }
  }

  /// The checks can fail: a probe that records flushes it did not make is caught. Its
  /// coalescing window (10 s) outlasts the run, so nothing reaches the database unless flushed:
  /// every round must be caught.
  @Test(.timeLimit(.minutes(10)))
  func theCheckCatchesAProbeThatRecordsFlushesItDidNotMake() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let rounds = try await SqlCrashProbe.run(
      probe: probe, rounds: 3, in: folder,
      extraArguments: ["--record-without-flush", "--window-ms", "10000"])
    let caught = rounds.filter { $0.restored.value < $0.lastFlushed }.count
    #expect(caught == rounds.count, "a lost flush was not detected: \(rounds)")
    // Whatever the probe claims, the database still holds states the process had.
    #expect(rounds.allSatisfy { $0.restored.isConsistent })
    print("SluiceCrashProbe --record-without-flush: caught in \(caught) of \(rounds.count) rounds")
  }
}

/// The probe's state, as the test decodes it (the same `Codable` form as `ProbeState` in
/// Tests/SluiceCrashProbe/main.swift).
struct SqlProbeState: Codable, Equatable, Sendable {
  var value = 0
  var recent: [Int] = []
  var digest: UInt64 = 0xcbf2_9ce4_8422_2325
  var padding = ""

  /// Whether this is a state the probe really had: every field is what `value` ticks make.
  var isConsistent: Bool {
    guard value >= 0 else { return false }
    var expected: UInt64 = 0xcbf2_9ce4_8422_2325
    if value > 0 {
      for tick in 1...value { expected = (expected ^ UInt64(tick)) &* 0x0000_0100_0000_01b3 }
    }
    let expectedRecent = value == 0 ? [] : Array(max(1, value - 15)...value)
    let expectedPadding =
      value == 0 ? "" : String(repeating: String(expected, radix: 16), count: 384)
    return digest == expected && recent == expectedRecent && padding == expectedPadding
  }
}

/// One kill of the probe and what the test found after it.
struct SqlCrashRound: Sendable, CustomStringConvertible {
  /// The value the probe restored when it started.
  let probeRestored: Int
  /// The value of the last flush the probe recorded as completed (or `probeRestored`).
  let lastFlushed: Int
  /// How many flushes the probe recorded in this round.
  let flushes: Int
  /// How many writes happened outside `flush()` (the coalescing window's, or write-through's).
  let backgroundWrites: Int
  /// How long the probe ran after its first recorded flush, before the kill.
  let ranFor: Duration
  /// What the test restored after the kill.
  let restored: SqlProbeState

  var description: String {
    let milliseconds =
      ranFor.components.seconds * 1_000
      + ranFor.components.attoseconds / 1_000_000_000_000_000
    return
      "probe restored \(probeRestored), killed \(milliseconds) ms after its first flush, "
      + "\(flushes) flushes, \(backgroundWrites) writes outside flush(), "
      + "last flushed \(lastFlushed), restored \(restored.value) "
      + "(\(restored.value - lastFlushed >= 0 ? "+" : "")\(restored.value - lastFlushed))"
  }
}

enum SqlCrashProbe {
  static let name = "SluiceCrashProbe"

  /// Prints where the database stood against the log after each kill.
  static func summarize(_ rounds: [SqlCrashRound], as mode: String) {
    let equal = rounds.filter { $0.restored.value == $0.lastFlushed }.count
    let ahead = rounds.filter { $0.restored.value > $0.lastFlushed }.count
    print(
      "SluiceCrashProbe (\(mode)): \(rounds.count) rounds; the database at the last recorded "
        + "flush in \(equal), ahead of it in \(ahead), behind it in "
        + "\(rounds.count - equal - ahead)")
    for (index, round) in rounds.enumerated() { print("  round \(index + 1): \(round)") }
  }

  static let notFound: Comment =
    "SluiceCrashProbe not found next to the test binary; build it with `swift build --build-tests`"

  /// The probe executable: `SLUICE_CRASH_PROBE`, else the one the build made.
  static func locate() -> URL? {
    BuiltExecutable.locate(name, override: "SLUICE_CRASH_PROBE")
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs the probe `rounds` times on one database, killing it each time.
  static func run(
    probe: URL, rounds: Int, in folder: TemporaryFolder, extraArguments: [String] = []
  ) async throws -> [SqlCrashRound] {
    let database = folder.path("crash.sqlite")
    let log = folder.path("flushes.log")
    var results: [SqlCrashRound] = []
    for round in 1...rounds {
      let errors = folder.path("stderr-\(round).txt")
      _ = FileManager.default.createFile(atPath: errors, contents: nil)
      let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
      defer { try? errorHandle.close() }
      let process = Process()
      process.executableURL = probe
      process.arguments = [database, log, "--flush-every", "64"] + extraArguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = errorHandle
      process.standardInput = FileHandle.nullDevice
      let startsBefore = SqlFlushLog.read(log).starts
      try process.run()
      // Whatever happens to the test (a thrown error, a cancellation), the probe must not
      // outlive it.
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      let stderr = { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

      // Wait for the probe to restore and complete a first flush, then let it run.
      let deadline = ContinuousClock.now.advanced(by: hangGuard)
      while true {
        let contents = SqlFlushLog.read(log)
        if contents.starts > startsBefore, contents.flushesSinceStart > 0 { break }
        guard process.isRunning else {
          throw Failure(description: "the probe exited early (round \(round)): \(stderr())")
        }
        guard ContinuousClock.now < deadline else {
          kill(process.processIdentifier, SIGKILL)
          await waitForExit(process)
          throw Failure(description: "the probe never flushed (round \(round)): \(stderr())")
        }
        try await Task.sleep(for: .milliseconds(1))
      }
      let started = ContinuousClock.now
      try await Task.sleep(for: .milliseconds(Int.random(in: 100...400)))
      guard process.isRunning else {
        throw Failure(description: "the probe died by itself (round \(round)): \(stderr())")
      }
      let ranFor = started.duration(to: .now)
      kill(process.processIdentifier, SIGKILL)
      await waitForExit(process)
      guard process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL
      else {
        throw Failure(
          description: "the probe ended with \(process.terminationReason) "
            + "\(process.terminationStatus) (round \(round)): \(stderr())")
      }

      let contents = SqlFlushLog.read(log)
      let restored = try restore(database)
      results.append(
        SqlCrashRound(
          probeRestored: contents.lastStart ?? -1,
          lastFlushed: contents.lastFlush ?? contents.lastStart ?? 0,
          flushes: contents.flushesSinceStart,
          backgroundWrites: contents.backgroundWritesSinceStart, ranFor: ranFor,
          restored: restored))
    }
    return results
  }

  /// Opens the database the way a relaunched app would, and restores the probe's store (its
  /// initial state when the database holds nothing yet).
  static func restore(_ path: String) throws -> SqlProbeState {
    let database = try SQLiteStorage(path: path)
    let store = Store(initialState: SqlProbeState(), persistence: .sqlite("probe", in: database))
    switch store.persistence?.restoreOutcome {
    case .restored(version: 1)?, .empty?: return store.state
    default:
      throw Failure(
        description: "the restore after the kill gave "
          + "\(sqlOutcome(store))")
    }
  }

  /// Waits for a killed process to be reaped, polling off the cooperative pool's threads.
  static func waitForExit(_ process: Process) async {
    let deadline = ContinuousClock.now.advanced(by: hangGuard)
    while process.isRunning, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}

/// The probe's log: `restored <value>` when it starts, `flushed <value> <writes before> <writes
/// after>` after each completed flush. A line without its newline (cut by the kill) does not
/// count.
struct SqlFlushLog {
  var starts = 0
  var lastStart: Int?
  var lastFlush: Int?
  var flushesSinceStart = 0
  /// Writes made outside `flush()` since the last start.
  var backgroundWritesSinceStart = 0
  private var writesAfterLastFlush = 0

  static func read(_ path: String) -> SqlFlushLog {
    var log = SqlFlushLog()
    guard let data = FileManager.default.contents(atPath: path) else { return log }
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    lines.removeLast()  // After the last newline: empty, or a line the kill cut.
    for line in lines {
      let fields = line.split(separator: " ")
      guard fields.count >= 2, let value = Int(fields[1]) else { continue }
      switch fields[0] {
      case "restored":
        log.starts += 1
        log.lastStart = value
        log.lastFlush = nil
        log.flushesSinceStart = 0
        log.backgroundWritesSinceStart = 0
        log.writesAfterLastFlush = 0
      case "flushed":
        log.lastFlush = value
        log.flushesSinceStart += 1
        if fields.count == 4, let before = Int(fields[2]), let after = Int(fields[3]) {
          log.backgroundWritesSinceStart += before - log.writesAfterLastFlush
          log.writesAfterLastFlush = after
        }
      default: continue
      }
    }
    return log
  }
}
