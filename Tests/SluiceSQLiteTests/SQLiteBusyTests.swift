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

// The busy timeout, under a concurrent writer process: `SluiceCrashProbe --hold-write-lock`
// holds the database's write lock (an immediate transaction) while the test opens and writes.
// Opens and writes wait for the lock instead of failing with "database is locked", and the wait
// ends at the storage's busy timeout.

@Suite struct SQLiteBusyTests {
  @Test(.timeLimit(.minutes(10)))
  func opensAndWritesWaitForAnotherProcessThatHoldsTheWriteLock() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    // The probe creates the file: the first open must create the tables, under the lock.
    let path = folder.path("busy.sqlite")
    let holder = try await SqlWriteLockHolder.start(probe, on: path, seconds: 1)
    defer { holder.kill() }

    let failures = try await sqlOnThread {
      var failures: [String] = []
      for attempt in 1...30 {
        do {
          let database = try SQLiteStorage(path: path)
          try database.write([
            sqlRecord("sluice.counter", version: 1, json: #"{"value":\#(attempt)}"#)
          ])
        } catch {
          failures.append("attempt \(attempt): \(error)")
        }
      }
      return failures
    }
    #expect(failures == [])
    #expect(try await holder.exit() == .released)
    let record = try #require(try SQLiteStorage(path: path).read("sluice.counter"))
    #expect(String(decoding: record.data, as: UTF8.self) == #"{"value":30}"#)
  }

  @Test(.timeLimit(.minutes(10)))
  func theWaitEndsAtTheBusyTimeoutWithAClearError() async throws {
    let probe = try #require(SqlCrashProbe.locate(), SqlCrashProbe.notFound)
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let timeout = Duration.milliseconds(200)
    // The holder keeps the lock far longer than the test may wait (it is killed at the end):
    // a wait that ends within the minute of the hang guards below ended at its timeout.
    let hold = 600.0

    // An open that has to create the tables.
    let fresh = folder.path("fresh.sqlite")
    let first = try await SqlWriteLockHolder.start(probe, on: fresh, seconds: hold)
    defer { first.kill() }
    let (openError, openTook) = try await sqlOnThread {
      let started = ContinuousClock.now
      do {
        _ = try SQLiteStorage(path: fresh, busyTimeout: timeout)
        return (nil as SQLiteStorageError?, started.duration(to: .now))
      } catch let error as SQLiteStorageError {
        return (error, started.duration(to: .now))
      }
    }
    await first.stop()
    #expect(openError?.kind == .busy)
    #expect(openError?.operation == "open")
    #expect(openError?.busyTimeout == timeout)
    #expect(openError?.description.contains("longer than the busy timeout (0.2 s)") == true)
    #expect(openTook >= timeout)
    #expect(openTook < hangGuard, "it waited \(openTook): for the holder, not the timeout")

    // A write through a storage opened before the holder took the lock.
    let path = folder.path("open.sqlite")
    let database = try SQLiteStorage(path: path, busyTimeout: timeout)
    let second = try await SqlWriteLockHolder.start(probe, on: path, seconds: hold)
    defer { second.kill() }
    let (writeError, writeTook) = try await sqlOnThread {
      let started = ContinuousClock.now
      do {
        try database.write([sqlRecord("sluice.counter", version: 1, json: "{}")])
        return (nil as SQLiteStorageError?, started.duration(to: .now))
      } catch let error as SQLiteStorageError {
        return (error, started.duration(to: .now))
      }
    }
    #expect(writeError?.kind == .busy)
    #expect(writeError?.operation == "write")
    #expect(writeError?.path == path)
    #expect(writeTook >= timeout)
    #expect(writeTook < hangGuard, "it waited \(writeTook): for the holder, not the timeout")
    await second.stop()
    // Nothing was written, and the storage works once the lock is gone.
    #expect(try database.read("sluice.counter") == nil)
    try database.write([sqlRecord("sluice.counter", version: 1, json: "{}")])
    #expect(try database.keys() == ["sluice.counter"])
  }

  @Test func theDefaultBusyTimeoutIsTenSeconds() {
    #expect(SQLiteStorage.busyTimeout == .seconds(10))
  }
}

/// Runs `body` on a thread of its own, for calls that block (SQLite waiting for a lock, a
/// child's output), and returns what it returns.
func sqlOnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}

/// A `SluiceCrashProbe --hold-write-lock` child: another process that holds a database's write
/// lock.
final class SqlWriteLockHolder: Sendable {
  enum Exit: Equatable, Sendable {
    /// It committed and exited 0.
    case released
    /// It ended otherwise (killed, or failed), with its standard error.
    case failed(String)
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let process: Process
  private let output: SqlLineReader
  private let errors: String

  private init(process: Process, output: SqlLineReader, errors: String) {
    self.process = process
    self.output = output
    self.errors = errors
  }

  /// Starts the probe on `path` and returns once it holds the lock, which it keeps for
  /// `seconds`.
  static func start(_ probe: URL, on path: String, seconds: Double) async throws
    -> SqlWriteLockHolder
  {
    let errors = path + ".holder-stderr.txt"
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
    defer { try? errorHandle.close() }
    let process = Process()
    process.executableURL = probe
    process.arguments = ["--hold-write-lock", "\(seconds)", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = errorHandle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = SqlLineReader(pipe)
    let holder = SqlWriteLockHolder(process: process, output: output, errors: errors)
    let locked = try await sqlOnThread { output.wait(for: "locked", timeout: hangGuard) }
    guard locked else {
      await holder.stop()
      throw Failure(description: "the probe did not take the lock: \(holder.standardError)")
    }
    return holder
  }

  private var standardError: String {
    (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
  }

  /// Waits (at most ``hangGuard``) for the probe to release the lock and end.
  func exit() async throws -> Exit {
    let released = try await sqlOnThread { [output] in
      output.wait(for: "released", timeout: hangGuard)
    }
    await SqlCrashProbe.waitForExit(process)
    guard released, !process.isRunning, process.terminationReason == .exit,
      process.terminationStatus == 0
    else { return .failed(standardError) }
    return .released
  }

  /// Kills the probe, and returns once it is gone (and its lock with it).
  func stop() async {
    kill()
    await SqlCrashProbe.waitForExit(process)
  }

  /// Kills the probe if it still runs, without waiting.
  func kill() {
    if process.isRunning { sqlKill(process.processIdentifier) }
  }
}

/// Sends SIGKILL to `process` (a free function: the holder's `kill()` hides the C one).
private func sqlKill(_ process: pid_t) {
  kill(process, SIGKILL)
}

/// Reads a pipe line by line on a thread of its own; waits for a given line with a deadline.
final class SqlLineReader: @unchecked Sendable {
  // @unchecked Sendable: `lines` and `ended` are only touched with `condition` locked; the
  // pipe is read by the one thread that `init` starts.
  private let condition = NSCondition()
  private var lines: [String] = []
  private var ended = false

  init(_ pipe: Pipe) {
    try? pipe.fileHandleForWriting.close()
    let handle = pipe.fileHandleForReading
    Thread { [self] in
      var pending = Data()
      while true {
        let chunk = handle.availableData
        pending.append(chunk)
        var complete: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          complete.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
          pending = Data(pending[(newline + 1)...])
        }
        condition.withLock {
          lines += complete
          if chunk.isEmpty { ended = true }
          condition.broadcast()
        }
        if chunk.isEmpty { break }
      }
    }.start()
  }

  /// Whether `line` was read within `timeout` (blocks: call it on a thread of its own).
  func wait(for line: String, timeout: Duration) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout.sqlSeconds)
    return condition.withLock {
      while !lines.contains(line), !ended {
        if !condition.wait(until: deadline) { break }
      }
      return lines.contains(line)
    }
  }
}

extension Duration {
  /// The duration in seconds.
  var sqlSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
