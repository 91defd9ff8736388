import ArgumentParser
import Foundation
import Sluice
import SluiceSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The persisted state. Every state the process has satisfies ``isConsistent``: a state read
/// back is one the process really had, not a mix of two or a torn write.
struct ProbeState: Codable, Equatable, Sendable {
  /// How many ticks were reduced since the database was created.
  var value = 0
  /// The last values, oldest first (at most `ProbeState.recentCount`).
  var recent: [Int] = []
  /// A hash chained over every value from 1 to `value`.
  var digest: UInt64 = ProbeState.digestSeed
  /// Bytes derived from `digest`, so that a record spans several database pages.
  var padding = ""

  static let recentCount = 16
  static let digestSeed: UInt64 = 0xcbf2_9ce4_8422_2325

  static func chain(_ digest: UInt64, _ value: Int) -> UInt64 {
    (digest ^ UInt64(value)) &* 0x0000_0100_0000_01b3
  }

  static func padding(for digest: UInt64) -> String {
    String(repeating: String(digest, radix: 16), count: 384)
  }

  mutating func tick() {
    value += 1
    recent.append(value)
    if recent.count > Self.recentCount { recent.removeFirst(recent.count - Self.recentCount) }
    digest = Self.chain(digest, value)
    padding = Self.padding(for: digest)
  }
}

struct Tick: Action {}

/// When the probe writes a flush to its log.
enum RecordMode: String, EnumerableFlag {
  /// Await `flush()`, then record it (the protocol).
  case afterFlush
  /// Record, then flush (broken on purpose).
  case beforeFlush
  /// Record without flushing (broken on purpose).
  case withoutFlush
  /// Write-through saving: record right after `dispatch` returns, without flushing.
  case afterDispatch

  static func name(for value: RecordMode) -> NameSpecification {
    switch value {
    case .afterFlush: .customLong("record-after-flush")
    case .beforeFlush: .customLong("record-before-flush")
    case .withoutFlush: .customLong("record-without-flush")
    case .afterDispatch: .customLong("write-through")
    }
  }

  static func help(for value: RecordMode) -> ArgumentHelp? {
    switch value {
    case .afterFlush: "Await flush(), then record it (the protocol; the default)."
    case .beforeFlush: "Record, then flush (broken on purpose)."
    case .withoutFlush: "Record without flushing (broken on purpose)."
    case .afterDispatch: "Save write-through; record right after dispatch returns."
    }
  }
}

/// Appends lines to a file, each one synced to disk before `append` returns.
final class FlushLog {
  private let descriptor: Int32

  init(path: String) {
    descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    if descriptor < 0 { fail("cannot open \(path): errno \(errno)") }
  }

  func append(_ line: String) {
    let bytes = Array("\(line)\n".utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        write(descriptor, $0.baseAddress, $0.count)
      }
      if written < 0 {
        if errno == EINTR { continue }
        fail("cannot write the flush log: errno \(errno)")
      }
      offset += written
    }
    if fsync(descriptor) != 0 { fail("cannot fsync the flush log: errno \(errno)") }
  }
}

/// `SluiceCrashProbe <database> <flush log> [--flush-every N] [--window-ms M] [mode]`: the child
/// process of the SQLite crash-safety test (Tests/SluiceSQLiteTests/SQLiteCrashSafetyTests.swift).
///
/// Restores a counter store from the database (and keeps counting from there), then dispatches
/// forever with coalesced saves (5 ms debounce, 50 ms maximum delay, so background writes happen
/// too). After each burst of dispatches (at most N, 64 by default; sometimes longer than the
/// maximum delay; sometimes followed by a pause longer than the debounce) it awaits `flush()`,
/// then appends `flushed <value> <writes before the flush> <writes after it>` to the flush log
/// and fsyncs it: a flush is completed once its line is in the log. The test kills the process
/// with SIGKILL at a random moment and checks the database against the log.
///
/// `--record-before-flush` and `--record-without-flush` break the protocol on purpose (the line
/// is written before the flush, or the flush is skipped), to show that the test can fail;
/// `--window-ms M` sets both coalescing delays to M ms. `--write-through` saves in write-through
/// mode and records each burst as soon as its last `dispatch` returned, without flushing: the
/// mode promises that this is durable already.
enum PersistenceProbe {
  static func run(
    database path: String, flushLog: String, flushEvery: Int,
    window: (debounce: Int, maxDelay: Int),
    mode: RecordMode
  ) async -> Never {
    let database: SQLiteStorage
    do {
      database = try SQLiteStorage(path: path)
    } catch {
      fail("cannot open the database: \(error)")
    }
    let log = FlushLog(path: flushLog)
    let store = Store(
      initialState: ProbeState(),
      reducer: Reducer<ProbeState>().on(Tick.self) { state, _ in state.tick() },
      persistence: .sqlite("probe", in: database)
        .saving(
          mode == .afterDispatch
            ? .writeThrough
            : .coalesced(
              debounce: .milliseconds(window.debounce), maxDelay: .milliseconds(window.maxDelay))))
    guard let persistence = store.persistence else { fail("the store has no persistence") }
    switch persistence.restoreOutcome {
    case .empty, .restored: break
    default: fail("unexpected restore: \(persistence.restoreOutcome)")
    }
    log.append("restored \(store.state.value)")

    // Each cycle dispatches a burst, then flushes. Most bursts are short (`flushEvery`
    // dispatches); one in 32 lasts past the 50 ms maximum delay, and one in eight ends with a
    // pause past the 5 ms debounce, so that background writes happen between flushes too.
    while true {
      let shape = Int.random(in: 0..<32)
      if shape == 0 {
        let end = ContinuousClock.now.advanced(by: .milliseconds(Int.random(in: 55...90)))
        while ContinuousClock.now < end {
          for _ in 0..<flushEvery { store.dispatch(Tick()) }
        }
      } else {
        for _ in 0..<Int.random(in: 1...flushEvery) { store.dispatch(Tick()) }
        if shape <= 4 { try? await Task.sleep(for: .milliseconds(Int.random(in: 6...12))) }
      }
      let value = store.state.value
      let writesBefore = persistence.writeCount
      switch mode {
      case .afterFlush:
        do { try await persistence.flush() } catch { fail("flush failed: \(error)") }
        log.append("flushed \(value) \(writesBefore) \(persistence.writeCount)")
      case .beforeFlush:
        log.append("flushed \(value) \(writesBefore) \(writesBefore + 1)")
        do { try await persistence.flush() } catch { fail("flush failed: \(error)") }
      case .withoutFlush, .afterDispatch:
        log.append("flushed \(value) \(writesBefore) \(writesBefore)")
      }
    }
  }
}
