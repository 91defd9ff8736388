import Foundation
import Sluice
import SluiceSQLite

/// `shared.*`: the shared lane (issue 15) on this machine, loopback and local files only.
/// Rates and latencies over fixed counts, reported as metrics; `ns_per_op` is the time per
/// action of the case's main figure.
enum SharedLaneCases {
  static let all: [BenchCase] = [
    BenchCase(name: "shared.replay.100k", make: { { _ in } }, custom: replay),
    BenchCase(name: "shared.sqlite.append", make: { { _ in } }, custom: sqliteAppend),
    BenchCase(name: "shared.sqlite.visible", make: { { _ in } }, custom: sqliteVisible),
  ]

  struct Tick: Action, Codable { let value: Int }

  static let actions = SharedActions().register(Tick.self, as: "bench.tick")
  static let reducer = Reducer<Int>().on(Tick.self) { state, action in state &+= action.value }

  static func record(_ origin: String, _ number: Int) -> SharedLogRecord {
    SharedLogRecord(
      origin: origin, originSequence: UInt64(number), name: "bench.tick",
      payload: Data(#"{"value":1}"#.utf8))
  }

  /// A new SQLite file in a temporary folder.
  static func file() -> String {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sluice-bench-shared-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("lane.sqlite").path
  }

  /// A node with a backlog of 100,000 actions (in an SQLite file) catches up: the time from
  /// `start()` to its return (`catch_up_ms`), and the replay rate (`actions_per_s`).
  static func replay(options: Options) -> Measurement {
    let count = options.once ? (options.iterations ?? 100_000) : 100_000
    let results = Results()
    PersistenceCases.wait {
      let path = file()
      let writer = try SQLiteLogEngine(path: path)
      for start in stride(from: 0, to: count, by: 1_000) {
        _ = try await writer.append(
          (start..<min(count, start + 1_000)).map { record("w", $0 + 1) }, to: "default")
      }
      let lane = try SharedLane(engine: try SQLiteLogEngine(path: path), actions: actions)
      let store = Store(initialState: 0, dispatcher: lane.dispatcher, reducer: reducer)
      let began = DispatchTime.now().uptimeNanoseconds
      try await lane.start()
      results.elapsed = Double(DispatchTime.now().uptimeNanoseconds - began)
      if store.state != count { printError("warning: shared.replay: \(store.state) of \(count)") }
      await lane.stop()
    }
    let elapsed = results.elapsed
    return Measurement(
      name: "shared.replay.100k", nsPerOp: elapsed / Double(count), ratioToLockFloor: nil,
      allocsPerOp: nil, iterations: count, repetitions: 1,
      metrics: [
        ("catch_up_ms", elapsed / 1e6), ("actions_per_s", Double(count) / (elapsed / 1e9)),
      ])
  }

  /// Durable appends to an SQLite log: one record per append (`appends_per_s`, and the commit
  /// time's `commit_p50_ms`), then batches of 100 (`batched_actions_per_s`).
  static func sqliteAppend(options: Options) -> Measurement {
    let single = options.once ? min(options.iterations ?? 1_000, 1_000) : 1_000
    let results = Results()
    PersistenceCases.wait {
      let log = try SQLiteLogEngine(path: file())
      results.samples = try await commitTimes(log, count: single)
      results.rate = try await batchedRate(log)
    }
    return commitMeasurement(
      "shared.sqlite.append", results.samples, and: [("batched_actions_per_s", results.rate)])
  }

  /// The time each of `count` appends of one record to `log` took, in nanoseconds.
  static func commitTimes(_ log: some SharedLogEngine, count: Int) async throws -> [Double] {
    var times: [Double] = []
    for number in 1...count {
      let began = DispatchTime.now().uptimeNanoseconds
      _ = try await log.append([record("single", number)], to: "default")
      times.append(Double(DispatchTime.now().uptimeNanoseconds - began))
    }
    return times
  }

  /// Records appended to `log` a second, in 200 batches of 100.
  static func batchedRate(_ log: some SharedLogEngine) async throws -> Double {
    let batches = 200
    let began = DispatchTime.now().uptimeNanoseconds
    for batch in 0..<batches {
      _ = try await log.append((1...100).map { record("batched", batch * 100 + $0) }, to: "default")
    }
    return Double(batches * 100) / (Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
  }

  /// An `*.append` case's measurement: `appends_per_s` and `commit_p50_ms` from the commit
  /// times, then `metrics`.
  static func commitMeasurement(
    _ name: String, _ commits: [Double], and metrics: [(name: String, value: Double)]
  ) -> Measurement {
    let total = commits.reduce(0, +)
    return Measurement(
      name: name, nsPerOp: total / Double(max(commits.count, 1)),
      ratioToLockFloor: nil, allocsPerOp: nil, iterations: commits.count, repetitions: 1,
      metrics: [
        ("appends_per_s", Double(commits.count) / (total / 1e9)),
        ("commit_p50_ms", percentile(commits, 0.5) / 1e6),
      ] + metrics)
  }

  /// Two nodes on one SQLite file, each with its own connection (as two processes would
  /// have): how long an action sent by one takes to be applied by the other
  /// (`visible_p50_ms`, `visible_p99_ms`).
  static func sqliteVisible(options: Options) -> Measurement {
    let samples = options.once ? min(options.iterations ?? 200, 200) : 200
    let results = Results()
    PersistenceCases.wait {
      let path = file()
      results.samples = try await visibleLatencies(
        [try SQLiteLogEngine(path: path), try SQLiteLogEngine(path: path)], samples: samples)
    }
    return visibleMeasurement("shared.sqlite.visible", results.samples)
  }

  /// Two nodes, on `engines[0]` and `engines[1]`: `samples` times, after an idle pause of 1–20
  /// ms, how long an action sent by the first takes to be applied by the second, in
  /// nanoseconds. A first action, not measured, gets both nodes following.
  static func visibleLatencies(
    _ engines: [any SharedLogEngine], samples: Int
  ) async throws -> [Double] {
    let sender = try SharedLane(engine: engines[0], actions: actions, node: "sender")
    let receiver = try SharedLane(engine: engines[1], actions: actions, node: "receiver")
    let stores = [sender, receiver].map {
      Store(initialState: 0, dispatcher: $0.dispatcher, reducer: reducer)
    }
    try await sender.start()
    try await receiver.start()
    var latencies: [Double] = []
    for sample in 0...samples {
      // An idle pause first, as between two user actions.
      try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
      let began = DispatchTime.now().uptimeNanoseconds
      let sequence = try await sender.send(Tick(value: 1))
      while receiver.appliedSequence < sequence { await Task.yield() }
      if sample > 0 { latencies.append(Double(DispatchTime.now().uptimeNanoseconds - began)) }
    }
    _ = stores
    await sender.stop()
    await receiver.stop()
    return latencies
  }

  /// A `*.visible` case's measurement: `visible_p50_ms` and `visible_p99_ms`.
  static func visibleMeasurement(_ name: String, _ latencies: [Double]) -> Measurement {
    Measurement(
      name: name, nsPerOp: percentile(latencies, 0.5), ratioToLockFloor: nil,
      allocsPerOp: nil, iterations: latencies.count, repetitions: 1,
      metrics: [
        ("visible_p50_ms", percentile(latencies, 0.5) / 1e6),
        ("visible_p99_ms", percentile(latencies, 0.99) / 1e6),
      ])
  }

  /// What a case's task measured, read once the task ended.
  final class Results: @unchecked Sendable {
    // @unchecked Sendable: written by the case's task only, read after `PersistenceCases.wait`
    // returned (its semaphore orders the two).
    var samples: [Double] = []
    var elapsed = 0.0
    var rate = 0.0
  }

  static func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
  }
}
