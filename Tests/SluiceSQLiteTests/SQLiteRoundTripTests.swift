import Clocks
import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

@Suite struct SQLiteRoundTripTests {
  @Test func roundTripThroughAFileAcrossRelaunches() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("app.sqlite")
    do {
      let database = try SQLiteStorage(path: path)
      #expect(database.path == path)
      let store = sqlCounterStore(.sqlite("counter", in: database))
      guard case .empty = store.persistence?.restoreOutcome else {
        Issue.record("a new database restores nothing")
        return
      }
      for _ in 0..<3 { store.dispatch(SqlIncrement()) }
      try await store.persistence?.flush()
      #expect(store.persistence?.hasPendingChanges == false)
    }
    #expect(FileManager.default.fileExists(atPath: path))
    do {
      let database = try SQLiteStorage(path: path)
      let store = sqlCounterStore(.sqlite("counter", in: database))
      #expect(store.state.value == 3)
      guard case .restored(version: 1) = store.persistence?.restoreOutcome else {
        Issue.record(
          "expected restored(version: 1), got \(sqlOutcome(store))"
        )
        return
      }
      store.dispatch(SqlIncrement())
      try await store.persistence?.flush()
    }
    let database = try SQLiteStorage(path: path)
    let store = sqlCounterStore(.sqlite("counter", in: database))
    #expect(store.state.value == 4)
    #expect(try database.keys() == ["sluice.counter"])
    let record = try #require(try database.read("sluice.counter"))
    #expect(record.version == 1)
    #expect(try JSONDecoder().decode(SqlCounter.self, from: record.data) == SqlCounter(value: 4))
  }

  @Test func severalStoresOfDifferentTypesShareOneFile() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("shared.sqlite")
    do {
      let database = try SQLiteStorage(path: path)
      let counter = sqlCounterStore(.sqlite("counter", in: database))
      let otherCounter = sqlCounterStore(.sqlite("counter", in: database).namespace("other"))
      let profile = sqlProfileStore(.sqlite("profile", in: database))
      for _ in 0..<5 { counter.dispatch(SqlIncrement()) }
      otherCounter.dispatch(SqlIncrement())
      profile.dispatch(SqlRename(name: "Ada"))
      profile.dispatch(SqlTag(tag: "admin"))
      try await counter.persistence?.flush()
      try await otherCounter.persistence?.flush()
      try await profile.persistence?.flush()
      #expect(try database.keys() == ["other.counter", "sluice.counter", "sluice.profile"])
    }
    let database = try SQLiteStorage(path: path)
    let counter = sqlCounterStore(.sqlite("counter", in: database))
    let otherCounter = sqlCounterStore(.sqlite("counter", in: database).namespace("other"))
    let profile = sqlProfileStore(.sqlite("profile", in: database))
    #expect(counter.state == SqlCounter(value: 5))
    #expect(otherCounter.state == SqlCounter(value: 1))
    #expect(profile.state == SqlProfile(name: "Ada", tags: ["admin"]))
    // A store on a key nobody wrote starts empty, next to the others.
    let fresh = sqlProfileStore(
      .sqlite("nobody", in: database), initialState: SqlProfile(name: "initial"))
    #expect(fresh.state == SqlProfile(name: "initial"))
    guard case .empty = fresh.persistence?.restoreOutcome else {
      Issue.record("expected empty")
      return
    }
  }

  @Test func storesOnTwoDatabaseObjectsOfOneFileSeeEachOthersWrites() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("twice.sqlite")
    let first = try SQLiteStorage(path: path)
    let second = try SQLiteStorage(path: path)
    let counter = sqlCounterStore(.sqlite("counter", in: first))
    let profile = sqlProfileStore(.sqlite("profile", in: second))
    counter.dispatch(SqlIncrement())
    profile.dispatch(SqlRename(name: "Grace"))
    try await counter.persistence?.flush()
    try await profile.persistence?.flush()
    #expect(try first.keys() == ["sluice.counter", "sluice.profile"])
    #expect(try second.keys() == ["sluice.counter", "sluice.profile"])
  }

  @Test func theStateIsRestoredSynchronouslyInTheInitializer() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let database = try SQLiteStorage(path: folder.path("restore.sqlite"))
    try database.write([sqlRecord("sluice.counter", version: 1, json: #"{"value":41}"#)])
    let store = sqlCounterStore(.sqlite("counter", in: database))
    // No await, no yield: the restored state is there as soon as the store exists.
    #expect(store.state.value == 41)
    store.dispatch(SqlIncrement())
    #expect(store.state.value == 42)
    store.reset()
    #expect(store.state.value == 0, "reset() goes back to the initial state, not the restored one")
  }

  @Test func writeThroughRecordIsInTheTableWhenDispatchReturns() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("through.sqlite")
    let database = try SQLiteStorage(path: path)
    // Another connection to the file: what it reads is on disk (committed), not in a cache.
    let observer = try SQLiteStorage(path: path)
    let store = sqlCounterStore(.sqlite("counter", in: database).saving(.writeThrough))
    #expect(try observer.read("sluice.counter") == nil)
    for expected in 1...20 {
      store.dispatch(SqlIncrement())
      let record = try #require(try observer.read("sluice.counter"))
      #expect(try JSONDecoder().decode(SqlCounter.self, from: record.data).value == expected)
    }
    #expect(store.persistence?.hasPendingChanges == false)
    #expect(store.persistence?.writeCount == 20)
  }

  @Test func writeThroughFromAnotherThreadAndWithAsyncSend() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("through-send.sqlite")
    let database = try SQLiteStorage(path: path)
    let observer = try SQLiteStorage(path: path)
    let store = sqlCounterStore(.sqlite("counter", in: database).saving(.writeThrough))
    await store.send(SqlIncrement())
    let afterSend = try #require(try observer.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: afterSend.data).value == 1)
    let done = Thread.sqlRun { store.dispatch(SqlIncrement()) }
    await done.wait()
    let afterThread = try #require(try observer.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: afterThread.data).value == 2)
  }

  @Test func coalescedSavesHappenWithoutFlush() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("coalesced.sqlite")
    let database = SqlWriteSignal(try SQLiteStorage(path: path))
    let observer = try SQLiteStorage(path: path)
    // The windows are measured on a test clock: the write is due once the clock says so,
    // however slowly the machine runs.
    let clock = TestClock()
    let store = sqlCounterStore(
      PersistenceKey("counter", storage: database)
        .saving(.coalesced(debounce: .milliseconds(10), maxDelay: .milliseconds(50)))
        .clock(clock))
    for _ in 0..<7 { store.dispatch(SqlIncrement()) }
    #expect(store.persistence?.hasPendingChanges == true)
    await clock.advance(by: .milliseconds(10))
    let written = try #require(
      await sqlFirst(of: database.writes),
      "the debounce elapsed: the state must reach the file without a flush")
    #expect(written.map(\.key) == ["sluice.counter"])
    let record = try #require(try observer.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: record.data).value == 7)
    #expect(store.persistence?.hasPendingChanges == false)
    // The flush queues behind the write and has nothing left to write.
    try await store.persistence?.flush()
    #expect(store.persistence?.writeCount == 1)
  }

  @Test func flushIsDurableForAnotherConnection() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("flush.sqlite")
    let database = try SQLiteStorage(path: path)
    // Windows far beyond the test: only `flush()` (or `saveNow()`) can write.
    let store = sqlProfileStore(
      .sqlite("profile", in: database)
        .saving(.coalesced(debounce: .seconds(3_600), maxDelay: .seconds(3_600))))
    for round in 1...5 {
      store.dispatch(SqlTag(tag: "t\(round)"))
      store.dispatch(SqlRename(name: "after \(round)"), mode: .async)
      try await store.persistence?.flush()
      // A second storage on the same path: what a relaunched process would read.
      let reader = try SQLiteStorage(path: path)
      let record = try #require(try reader.read("sluice.profile"))
      let saved = try JSONDecoder().decode(SqlProfile.self, from: record.data)
      #expect(saved.name == "after \(round)", "the async dispatch before flush() is included")
      #expect(saved.tags == (1...round).map { "t\($0)" })
      #expect(saved == store.state)
    }
    #expect(store.persistence?.writeCount == 5)
  }

  @Test func saveNowWritesAnUnchangedStateAndDisabledStoresDoNotWrite() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("switch.sqlite")
    let database = try SQLiteStorage(path: path)
    let store = Store(
      initialState: SqlCounter(value: 7), reducer: sqlCounterReducer,
      persistence: .sqlite("counter", in: database))
    try await store.persistence?.flush()
    #expect(try database.read("sluice.counter") == nil, "nothing changed: flush writes nothing")
    try await store.persistence?.saveNow()
    let first = try #require(try database.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: first.data).value == 7)

    store.persistence?.isEnabled = false
    store.dispatch(SqlIncrement())
    try await store.persistence?.flush()
    let whileOff = try #require(try database.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: whileOff.data).value == 7)

    store.persistence?.isEnabled = true
    try await store.persistence?.flush()
    let afterOn = try #require(try database.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: afterOn.data).value == 8)
  }

  @Test func releasingTheStoreWritesWhatIsPending() throws {
    let folder = try TemporaryFolder(prefix: "sluice-sqlite")
    defer { folder.remove() }
    let path = folder.path("close.sqlite")
    do {
      let database = try SQLiteStorage(path: path)
      let store = sqlCounterStore(
        .sqlite("counter", in: database)
          .saving(.coalesced(debounce: .seconds(3_600), maxDelay: .seconds(3_600))))
      store.dispatch(SqlIncrement())
      store.dispatch(SqlIncrement())
    }
    let database = try SQLiteStorage(path: path)
    let record = try #require(try database.read("sluice.counter"))
    #expect(try JSONDecoder().decode(SqlCounter.self, from: record.data).value == 2)
  }
}

extension Thread {
  /// Runs `body` on a new thread; the result's `wait()` resumes when it is done, without
  /// blocking a thread of the cooperative pool.
  static func sqlRun(_ body: @escaping @Sendable () -> Void) -> SqlThreadDone {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let thread = Thread {
      body()
      continuation.yield()
      continuation.finish()
    }
    thread.start()
    return SqlThreadDone(stream: stream)
  }
}

/// The end of a thread started by ``Thread/sqlRun(_:)``.
struct SqlThreadDone: Sendable {
  let stream: AsyncStream<Void>

  func wait() async {
    for await _ in stream { return }
  }
}
