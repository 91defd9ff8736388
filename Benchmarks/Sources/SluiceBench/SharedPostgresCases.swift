#if SLUICE_NETWORK_CASES
  import Foundation
  import Sluice
  import SluicePostgres

  /// `shared.postgres.*`: the shared lane on PostgreSQL (issue 15), on a server of the benchmark's
  /// own (``PostgresBenchServer``: loopback, fsync on). Skipped, with a note, where PostgreSQL is
  /// not installed.
  enum SharedPostgresCases {
    static let all: [BenchCase] = [
      BenchCase(
        name: "shared.postgres.append", make: { { _ in } }, custom: append,
        unavailable: PostgresBenchServer.unavailability),
      BenchCase(
        name: "shared.postgres.batched", make: { { _ in } }, custom: batched,
        unavailable: PostgresBenchServer.unavailability),
      BenchCase(
        name: "shared.postgres.visible", make: { { _ in } }, custom: visible,
        unavailable: PostgresBenchServer.unavailability),
      BenchCase(
        name: "shared.postgres.lanes", make: { { _ in } }, custom: lanes,
        unavailable: PostgresBenchServer.unavailability),
      BenchCase(
        name: "shared.postgres.idle", make: { { _ in } }, custom: idle,
        unavailable: PostgresBenchServer.unavailability),
    ]

    typealias Tick = SharedLaneCases.Tick

    /// Runs `body` with a new database of the server, started first if needed (from the calling
    /// thread, the main one: starting blocks); an empty measurement when the server cannot run.
    static func measure(
      _ name: String,
      _ body:
        @escaping @Sendable (PostgresLogEngine.Configuration, SharedLaneCases.Results)
        async throws -> Void
    ) -> SharedLaneCases.Results {
      let results = SharedLaneCases.Results()
      let configuration: PostgresLogEngine.Configuration
      do {
        configuration = try PostgresBenchServer.shared.get()
          .makeDatabase(name.replacingOccurrences(of: ".", with: "_"))
      } catch {
        printError("warning: \(name): \(error)")
        return results
      }
      PersistenceCases.wait { try await body(configuration, results) }
      return results
    }

    /// Durable appends of one record each: 1,000 in a row from one engine (`appends_per_s`, and
    /// the commit time's `commit_p50_ms` and `commit_p99_ms`), then 4 engines appending 250 each
    /// at once, as four nodes would (`appends_per_s_4_nodes`).
    static func append(options: Options) -> Measurement {
      let single = options.once ? min(options.iterations ?? 1_000, 1_000) : 1_000
      let results = measure("shared.postgres.append") { configuration, results in
        let log = PostgresLogEngine(configuration: configuration)
        _ = try await log.head(of: "default")  // Connects and creates the tables.
        results.samples = try await SharedLaneCases.commitTimes(log, count: single)
        let nodes = (0..<4).map { _ in PostgresLogEngine(configuration: configuration) }
        for node in nodes { _ = try await node.head(of: "default") }
        let began = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
          for (index, node) in nodes.enumerated() {
            group.addTask {
              for number in 1...250 {
                _ = try await node.append(
                  [SharedLaneCases.record("node\(index)", number)], to: "default")
              }
            }
          }
          try await group.waitForAll()
        }
        results.rate = 1_000 / (Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
        for engine in nodes + [log] { await engine.close() }
      }
      return SharedLaneCases.commitMeasurement(
        "shared.postgres.append", results.samples,
        and: [
          ("commit_p99_ms", SharedLaneCases.percentile(results.samples, 0.99) / 1e6),
          ("appends_per_s_4_nodes", results.rate),
        ])
    }

    /// Actions appended in batches: 200 batches of 100 records from one engine
    /// (`batched_actions_per_s`), then 20,000 actions dispatched to a shared lane at once and
    /// flushed, its outbox batching them (`lane_actions_per_s`, until the node applied them all).
    static func batched(options: Options) -> Measurement {
      let results = measure("shared.postgres.batched") { configuration, results in
        let log = PostgresLogEngine(configuration: configuration)
        _ = try await log.head(of: "default")
        results.rate = try await SharedLaneCases.batchedRate(log)
        await log.close()

        let engine = PostgresLogEngine(configuration: configuration)
        let lane = try SharedLane(engine: engine, actions: SharedLaneCases.actions, node: "lane")
        let store = Store(
          initialState: 0, dispatcher: lane.dispatcher, reducer: SharedLaneCases.reducer)
        try await lane.start()  // Applies the batches above.
        let count = 20_000
        let before = store.state
        let began = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { store.dispatch(Tick(value: 1)) }
        try await lane.flush()
        results.elapsed = elapsedSeconds(since: began)
        if store.state - before != count {
          printError("warning: \(store.state - before) of \(count) applied")
        }
        results.samples = [Double(count) / results.elapsed]
        await lane.stop()
        await engine.close()
      }
      return Measurement(
        name: "shared.postgres.batched", nsPerOp: results.rate > 0 ? 1e9 / results.rate : 0,
        ratioToLockFloor: nil, allocsPerOp: nil, iterations: 20_000, repetitions: 1,
        metrics: [
          ("batched_actions_per_s", results.rate),
          ("lane_actions_per_s", results.samples.first ?? 0),
        ])
    }

    /// Two nodes, each with its own engine (as two machines would have): how long an action sent
    /// by one takes to be applied by the other, after an idle pause of 1–20 ms
    /// (`visible_p50_ms`, `visible_p99_ms`; 200 samples).
    static func visible(options: Options) -> Measurement {
      let samples = options.once ? min(options.iterations ?? 200, 200) : 200
      let results = measure("shared.postgres.visible") { configuration, results in
        let engines = (0..<2).map { _ in PostgresLogEngine(configuration: configuration) }
        results.samples = try await SharedLaneCases.visibleLatencies(engines, samples: samples)
        for engine in engines { await engine.close() }
      }
      return SharedLaneCases.visibleMeasurement("shared.postgres.visible", results.samples)
    }

    static func elapsedSeconds(since began: UInt64) -> Double {
      Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
    }
  }
#else
  /// Built without PostgreSQL (`SLUICE_CORE_ONLY=1`): no cases.
  enum SharedPostgresCases {
    static let all: [BenchCase] = []
  }
#endif
