#if SLUICE_NETWORK_CASES
  import Foundation
  import Sluice
  import SluicePostgres

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// `shared.postgres.lanes` and `shared.postgres.idle`: many lanes in one PostgreSQL database
  /// (issue 25).
  extension SharedPostgresCases {
    /// The case's figures, read once its task ended.
    final class Figures: @unchecked Sendable {
      // @unchecked Sendable: written by the case's task only, read after
      // `PersistenceCases.wait` returned (its semaphore orders the two).
      var metrics: [(name: String, value: Double)] = []
    }

    /// Four engines, as four processes would have, appending one record per append: first to
    /// one lane (each engine 500 appends in a row), then to 100 lanes (each engine 100 appenders
    /// at once, one per lane, 25 appends each): `appends_per_s_1_lane`, `appends_per_s_100_lanes`
    /// and their ratio.
    static func lanes(options: Options) -> Measurement {
      let figures = Figures()
      _ = measure("shared.postgres.lanes") { configuration, _ in
        let engines = (0..<4).map { _ in PostgresLogEngine(configuration: configuration) }
        for engine in engines { _ = try await engine.head(of: "warm-up") }
        let one = try await appendRate(engines, lanes: 1, appends: 500)
        let many = try await appendRate(engines, lanes: 100, appends: 25)
        for engine in engines { await engine.close() }
        figures.metrics = [
          ("appends_per_s_1_lane", one), ("appends_per_s_100_lanes", many),
          ("ratio", one > 0 ? many / one : 0),
        ]
      }
      let many = figures.metrics.first { $0.name == "appends_per_s_100_lanes" }?.value ?? 0
      return Measurement(
        name: "shared.postgres.lanes", nsPerOp: many > 0 ? 1e9 / many : 0, ratioToLockFloor: nil,
        allocsPerOp: nil, iterations: 4 * 100 * 25, repetitions: 1, metrics: figures.metrics)
    }

    /// Appends a second when each of `engines` appends `appends` records, one per append, to
    /// each of `lanes` lanes at once (`lane0`, `lane1`, …; a lane's appenders take turns).
    static func appendRate(
      _ engines: [PostgresLogEngine], lanes: Int, appends: Int
    ) async throws -> Double {
      let began = DispatchTime.now().uptimeNanoseconds
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, engine) in engines.enumerated() {
          for lane in 0..<lanes {
            group.addTask {
              for number in 1...appends {
                _ = try await engine.append(
                  [SharedLaneCases.record("node\(index)", number)], to: "lane\(lane)")
              }
            }
          }
        }
        try await group.waitForAll()
      }
      return Double(engines.count * lanes * appends) / elapsedSeconds(since: began)
    }

    /// One engine, as one process would have, hosting a started node of each of 10,000 lanes,
    /// each lane with one action sent; then 30 s idle. Before and after the idle time: the
    /// process's resident memory (`rss_mib_start`, `rss_mib_end`) and the server's connections
    /// to the database (`connections_start`, `connections_end`); over it, the processor time
    /// the process and the server's processes took (`cpu_percent_bench`,
    /// `cpu_percent_server`, of one core). `create_s` is the time the lanes took to start and
    /// append.
    static func idle(options: Options) -> Measurement {
      let count = options.once ? min(options.iterations ?? 10_000, 10_000) : 10_000
      let idleSeconds = 30.0
      let figures = Figures()
      let name = "shared.postgres.idle"
      _ = measure(name) { configuration, _ in
        let engine = PostgresLogEngine(configuration: configuration)
        let began = DispatchTime.now().uptimeNanoseconds
        var lanes: [SharedLane] = []
        var stores: [Store<Int>] = []
        for index in 0..<count {
          let lane = try SharedLane(
            engine: engine, lane: "lane\(index)", actions: SharedLaneCases.actions, node: "node")
          stores.append(
            Store(initialState: 0, dispatcher: lane.dispatcher, reducer: SharedLaneCases.reducer))
          lanes.append(lane)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
          for lane in lanes {
            group.addTask {
              try await lane.start()
              _ = try await lane.send(Tick(value: 1))
            }
          }
          try await group.waitForAll()
        }
        let created = elapsedSeconds(since: began)
        // The endpoint reads `host:port/database`.
        let database = String(configuration.endpoint.split(separator: "/").last ?? "")
        let start = usage(database)
        try await Task.sleep(for: .seconds(idleSeconds))
        let end = usage(database)
        if stores.contains(where: { $0.state != 1 }) { printError("warning: \(name): a lane lost") }
        figures.metrics = [
          ("lanes", Double(count)), ("create_s", created),
          ("rss_mib_start", start.rss), ("rss_mib_end", end.rss),
          ("connections_start", start.connections), ("connections_end", end.connections),
          ("cpu_percent_bench", (end.cpu - start.cpu) / idleSeconds * 100),
          ("cpu_percent_server", (end.serverCPU - start.serverCPU) / idleSeconds * 100),
        ]
        for lane in lanes { await lane.stop() }
        await engine.close()
      }
      return Measurement(
        name: name, nsPerOp: 0, ratioToLockFloor: nil, allocsPerOp: nil, iterations: count,
        repetitions: 1, metrics: figures.metrics)
    }

    /// What the process and the server use at a moment.
    struct Usage {
      /// The process's resident memory, in MiB.
      var rss: Double
      /// The server's connections to `database`.
      var connections: Double
      /// Processor time, in seconds, of the process and of every server process.
      var cpu: Double
      var serverCPU: Double
    }

    static func usage(_ database: String) -> Usage {
      let server = try? PostgresBenchServer.shared.get()
      let connections = server?.scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'")
      return Usage(
        rss: Double(residentPages()) * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576,
        connections: connections.flatMap(Double.init) ?? -1,
        cpu: processorSeconds("self"), serverCPU: serverProcessorSeconds())
    }

    /// The process's resident pages (`/proc/self/statm`'s second field).
    static func residentPages() -> Int {
      let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
      return statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }

    /// The user and system time of process `pid` (`/proc/<pid>/stat`), in seconds; 0 when it
    /// cannot be read.
    static func processorSeconds(_ pid: String) -> Double {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return 0 }
      // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12])
      else { return 0 }
      return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The processor time of every process named `postgres`, in seconds.
    static func serverProcessorSeconds() -> Double {
      let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      return pids.filter { Int($0) != nil }.reduce(0) { total, pid in
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return command.hasPrefix("postgres") ? total + processorSeconds(pid) : total
      }
    }
  }
#endif
