import Clocks
import Foundation
import Sluice
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceSQLite

/// The shared log in an SQLite file: one gap-free order, one entry per origin and origin
/// sequence, the same log for every connection to the file.
@Suite struct SQLiteLogEngineTests {
  static func record(_ origin: String, _ number: UInt64, _ text: String = "") -> SharedLogRecord {
    SharedLogRecord(
      origin: origin, originSequence: number, name: "test.add", payload: Data(text.utf8))
  }

  @Test func batchesAreNumberedInOrderWithNoGap() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let log = try SQLiteLogEngine(path: folder.path("log.sqlite"))
    #expect(try await log.head(of: "default") == 0)
    #expect(try await log.append([Self.record("a", 1, "one")], to: "default") == [1])
    #expect(
      try await log.append(
        [Self.record("a", 2), Self.record("b", 1), Self.record("a", 3)], to: "default") == [
          2, 3, 4,
        ])
    #expect(try await log.append([], to: "default") == [])
    #expect(try await log.head(of: "default") == 4)
    let entries = try await log.entries(of: "default", after: 0, limit: 10)
    #expect(entries.map(\.sequence) == [1, 2, 3, 4])
    #expect(
      entries.map(\.record) == [
        Self.record("a", 1, "one"), Self.record("a", 2), Self.record("b", 1), Self.record("a", 3),
      ])
    #expect(try await log.entries(of: "default", after: 2, limit: 1).map(\.sequence) == [3])
    #expect(try await log.entries(of: "default", after: 4, limit: 10).isEmpty)
    #expect(try await log.entries(of: "default", after: 0, limit: 0).isEmpty)
  }

  @Test func aResubmittedRecordKeepsItsNumberAndIsNotAddedAgain() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let log = try SQLiteLogEngine(path: folder.path("log.sqlite"))
    #expect(
      try await log.append([Self.record("a", 1), Self.record("a", 2)], to: "default") == [1, 2])
    // A retry after a lost acknowledgement, with a new action behind it.
    #expect(
      try await log.append([Self.record("a", 2), Self.record("a", 3)], to: "default") == [2, 3])
    // The same record twice in one batch.
    #expect(
      try await log.append([Self.record("b", 1), Self.record("b", 1)], to: "default") == [4, 4])
    #expect(try await log.head(of: "default") == 4)
  }

  @Test func connectionsAppendingAtOnceShareOneContiguousLog() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("log.sqlite")
    // One engine per writer, as separate processes would have.
    let writers = try (0..<4).map { _ in try SQLiteLogEngine(path: path) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, log) in writers.enumerated() {
        group.addTask {
          for batch in 0..<25 {
            let records = (1...4).map { Self.record("node\(index)", UInt64(batch * 4 + $0)) }
            let numbers = try await log.append(records, to: "default")
            #expect(numbers.count == 4)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 + 1 == $1 })
          }
        }
      }
      try await group.waitForAll()
    }
    let entries = try await writers[0].entries(of: "default", after: 0, limit: 1_000)
    #expect(entries.map(\.sequence) == Array(1...400))
    for index in 0..<4 {
      let mine = entries.filter { $0.record.origin == "node\(index)" }
      #expect(mine.map(\.record.originSequence) == Array(1...100))
    }
  }

  @Test func aWaitEndsAtItsTimeoutOnTheEnginesClock() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // An immediate clock: every pause of the polling passes at once, and adds up on the clock.
    let clock = ImmediateClock()
    let reader = try SQLiteLogEngine(path: folder.path("log.sqlite"), clock: clock)
    let start = clock.now
    try await reader.waitForEntries(of: "default", after: 0, timeout: .milliseconds(50))
    #expect(start.duration(to: clock.now) == .milliseconds(50))
    #expect(try await reader.head(of: "default") == 0)
  }

  @Test func aWaitEndsWhenAnotherConnectionAppends() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("log.sqlite")
    // A test clock that never moves: only an append seen by the engine's watcher ends the wait.
    let reader = try SQLiteLogEngine(path: path, clock: TestClock())
    let writer = try SQLiteLogEngine(path: path)
    let woken = Woken()
    let wait = Task {
      try await reader.waitForEntries(of: "a", after: 0, timeout: .seconds(1))
      woken.flag.withLock { $0 = true }
    }
    // Appends until the wait ended (the first may come before the wait looks): the watcher must
    // see one of them. At most 2,000, a hang guard.
    var appended: UInt64 = 0
    while !woken.flag.withLock({ $0 }), appended < 2_000 {
      appended += 1
      _ = try await writer.append([Self.record("w", appended)], to: "a")
    }
    #expect(woken.flag.withLock { $0 }, "an append ended the wait")
    wait.cancel()
    #expect(try await reader.head(of: "a") == appended)
  }

  @Test func aNumberALogCannotStoreIsAnError() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let log = try SQLiteLogEngine(path: folder.path("log.sqlite"))
    await #expect(throws: SharedLaneError(.numberOutOfRange(.max), operation: "use the shared log"))
    {
      _ = try await log.append([Self.record("a", .max)], to: "default")
    }
    #expect(try await log.head(of: "default") == 0)
  }
}

/// Whether a wait ended, set by the waiting task.
final class Woken: Sendable {
  let flag = Mutex(false)
}
