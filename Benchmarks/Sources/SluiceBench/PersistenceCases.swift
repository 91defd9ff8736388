import Dispatch
import Foundation
import Sluice
import SluiceSQLite

/// `persistence.*`: what SQLite persistence costs a store.
enum PersistenceCases {
  static let all: [BenchCase] = [
    BenchCase(name: "persistence.sqlite.dispatch", make: dispatchCoalesced),
    BenchCase(name: "persistence.sqlite.write_through", make: dispatchWriteThrough),
    BenchCase(name: "persistence.sqlite.flush", make: flush),
    BenchCase(name: "persistence.restore.1mb", make: restore1MB),
    BenchCase(
      name: "persistence.sqlite.sustained_writes", make: { { _ in } },
      custom: sustainedWrites),
  ]

  struct Counter: Codable, Equatable, Sendable {
    var value = 0
  }

  /// About 1 MB of JSON: 8,400 entries of ~120 bytes.
  struct Big: Codable, Equatable, Sendable {
    var entries: [String: String]
  }

  static let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

  /// A fresh database file in a temporary folder (removed at exit by the OS's tmp cleaning;
  /// the files are small).
  static func database() -> SQLiteStorage {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sluice-bench-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return try SQLiteStorage(path: folder.appendingPathComponent("bench.sqlite").path)
    } catch {
      printError("error: persistence: cannot open a database in \(folder.path): \(error)")
      exit(1)
    }
  }

  /// Runs `body` to completion on the cooperative pool and waits for it (the bench's thread
  /// is not one of the pool's).
  static func wait(_ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
      do { try await body() } catch { printError("error: persistence: \(error)") }
      done.signal()
    }
    done.wait()
  }

  /// `dispatch.observers0` with SQLite persistence on, coalesced with the default windows
  /// (2 s, 10 s): the cost on the dispatch path of a persisted store.
  static func dispatchCoalesced() -> (Int) -> Void {
    let store = Store(
      initialState: Counter(), reducer: reducer, persistence: .sqlite("counter", in: database()))
    return { iterations in
      for _ in 0..<iterations { store.dispatch(Increment()) }
    }
  }

  /// Every dispatch durable before it returns: one SQLite transaction (WAL, synchronous FULL)
  /// per dispatch.
  static func dispatchWriteThrough() -> (Int) -> Void {
    let store = Store(
      initialState: Counter(), reducer: reducer,
      persistence: .sqlite("counter", in: database()).saving(.writeThrough))
    return { iterations in
      let before = store.persistence?.writeCount ?? 0
      for _ in 0..<iterations { store.dispatch(Increment()) }
      let writes = (store.persistence?.writeCount ?? 0) - before
      require(
        writes == iterations, "persistence.sqlite.write_through",
        "expected \(iterations) writes, saw \(writes)")
    }
  }

  /// One dispatch then `flush()`: the latency of making a change durable on demand.
  static func flush() -> (Int) -> Void {
    let store = Store(
      initialState: Counter(), reducer: reducer, persistence: .sqlite("counter", in: database()))
    return { iterations in
      wait {
        for _ in 0..<iterations {
          store.dispatch(Increment())
          try await store.persistence?.flush()
        }
      }
    }
  }

  /// Creating a store whose ~1 MB state is restored from SQLite (read, JSON decode).
  static func restore1MB() -> (Int) -> Void {
    let storage = database()
    var entries: [String: String] = [:]
    for index in 0..<8_400 {
      entries["entry-\(index)"] = String(repeating: "x", count: 100) + "\(index)"
    }
    let big = Big(entries: entries)
    do {
      let seed = Store(initialState: big, persistence: .sqlite("big", in: storage))
      wait { try await seed.persistence?.saveNow() }
    }
    let size = (try? JSONEncoder().encode(big).count) ?? 0
    require(size > 1_000_000, "persistence.restore.1mb", "the state is only \(size) bytes")
    return { iterations in
      for _ in 0..<iterations {
        let store = Store(
          initialState: Big(entries: [:]), persistence: .sqlite("big", in: storage))
        if store.state.entries.count != 8_400 {
          require(false, "persistence.restore.1mb", "the state was not restored")
        }
      }
    }
  }

  /// Dispatching as fast as possible for 1.5 s with windows of 20 ms (debounce) and 100 ms
  /// (max delay): the writes per second stay bounded by the window (≈ 10/s), not by the
  /// dispatch rate.
  static func sustainedWrites(options: Options) -> Measurement {
    let store = Store(
      initialState: Counter(), reducer: reducer,
      persistence: .sqlite("counter", in: database())
        .saving(.coalesced(debounce: .milliseconds(20), maxDelay: .milliseconds(100))))
    let seconds = options.once ? 0.5 : 1.5
    var dispatches = 0
    let elapsed = Harness.time {
      let clock = ContinuousClock()
      let end = clock.now.advanced(by: .milliseconds(Int(seconds * 1_000)))
      while clock.now < end {
        for _ in 0..<1_000 { store.dispatch(Increment()) }
        dispatches += 1_000
      }
    }
    let writes = store.persistence?.writeCount ?? 0
    let secondsElapsed = elapsed / 1e9
    return Measurement(
      name: "persistence.sqlite.sustained_writes", nsPerOp: elapsed / Double(dispatches),
      ratioToLockFloor: nil, allocsPerOp: nil, iterations: dispatches, repetitions: 1,
      metrics: [
        ("writes_per_second", Double(writes) / secondsElapsed),
        ("dispatches_per_second", Double(dispatches) / secondsElapsed),
      ])
  }
}
