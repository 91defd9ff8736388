import Foundation
import Sluice
import SluiceSQLite

#if canImport(SluicePostgres)
  import SluicePostgres
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `SluiceCrashProbe --shared-lane <database> <node> <nodes> <count> [--pause-ms M]
/// [--lane NAME]`: one node of a shared lane (the default one unless named) on an SQLite file, or with `--postgres URL` in place of the file, on a
/// PostgreSQL database; for the multi-process tests (Tests/SluiceSQLiteTests/
/// SharedLaneProcessTests.swift, Tests/SluicePostgresTests/SharedLaneProcessPostgresTests.swift),
/// which kill nodes with SIGKILL and restart them, and stop the server.
///
/// The node catches up with the log (trying again for a minute while the log cannot be
/// reached), then dispatches `Append(node, index)` for the indexes its own entries do not hold
/// yet, up to `count`, in bursts of 1 to 32, each followed by a flush and a pause of 0 to M ms
/// (none by default). It prints `sending <index>` before each flush and `acked <index>` after
/// it (every index below it is in the log). Once the log holds `count` appends of each of the
/// `nodes` nodes, it prints `final <digest>` — a hash chained over every append in log order —
/// and exits 0.
enum SharedLaneProbe {
  struct Append: Action, Codable {
    let node: Int
    let index: Int
  }

  struct State: Sendable, Equatable {
    /// How many appends of each node were applied.
    var counts: [Int: Int] = [:]
    /// Chained over every append, in the order applied.
    var digest: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Appends applied out of their node's order (must stay 0).
    var disorders = 0
  }

  /// Where the lane's log is.
  enum Log {
    case sqlite(path: String)
    case postgres(url: String)
  }

  static let reducer = Reducer<State>().on(Append.self) { state, action in
    if state.counts[action.node, default: 0] != action.index { state.disorders += 1 }
    state.counts[action.node] = action.index + 1
    state.digest =
      (state.digest ^ UInt64(action.node &* 1_000_003 &+ action.index))
      &* 0x0000_0100_0000_01b3
  }

  /// The PostgreSQL engine at `url`; in a core-only build (`SLUICE_CORE_ONLY=1`), an error.
  static func postgresEngine(url: String) throws -> any SharedLogEngine {
    #if canImport(SluicePostgres)
      try PostgresLogEngine(configuration: .init(url: url))
    #else
      struct WithoutPostgres: Error, CustomStringConvertible {
        var description: String { "this SluiceCrashProbe was built without SluicePostgres" }
      }
      throw WithoutPostgres()
    #endif
  }

  static func run(log: Log, lane name: String, node: Int, nodes: Int, count: Int, pause: Int)
    async -> Never
  {
    let lane: SharedLane
    let store: Store<State>
    do {
      let engine: any SharedLogEngine =
        switch log {
        // The busy timeout is a hang guard, as long as the tests' `hangGuard` (ten minutes):
        // beside a loaded machine another node may hold the write lock for a long time.
        case .sqlite(let path): try SQLiteLogEngine(path: path, busyTimeout: .seconds(600))
        case .postgres(let url): try postgresEngine(url: url)
        }
      lane = try SharedLane(
        engine: engine, lane: name,
        actions: SharedActions().register(Append.self, as: "probe.append"),
        node: "node\(node)")
      store = Store(initialState: State(), dispatcher: lane.dispatcher, reducer: reducer)
    } catch {
      fail("cannot make the shared lane: \(error)")
    }
    await start(lane)
    var next = store.state.counts[node, default: 0]
    while next < count {
      let burst = min(Int.random(in: 1...32), count - next)
      for index in next..<(next + burst) { store.dispatch(Append(node: node, index: index)) }
      line("sending \(next + burst)")
      do { try await lane.flush() } catch { fail("flush failed: \(error)") }
      next += burst
      line("acked \(next)")
      if pause > 0 { try? await Task.sleep(for: .milliseconds(Int.random(in: 0...pause))) }
    }
    while (0..<nodes).contains(where: { store.state.counts[$0, default: 0] < count }) {
      try? await Task.sleep(for: .milliseconds(5))
      if let reason = lane.stopReason { fail("the node stopped: \(reason)") }
    }
    let state = store.state
    guard state.disorders == 0 else { fail("\(state.disorders) appends out of order") }
    line("final \(state.digest)")
    exit(0)
  }

  /// Starts `lane`, trying again every 50 ms for ten minutes while its log cannot be read (a
  /// server restarting): the tests' hang guard (`hangGuard` of SluiceTestSupport), which the
  /// test waiting for this process uses.
  private static func start(_ lane: SharedLane) async {
    let deadline = ContinuousClock.now.advanced(by: .seconds(600))
    while true {
      do {
        try await lane.start()
        return
      } catch {
        if let reason = lane.stopReason { fail("the node stopped: \(reason)") }
        guard ContinuousClock.now < deadline else {
          fail("cannot start the shared lane: \(error)")
        }
        try? await Task.sleep(for: .milliseconds(50))
      }
    }
  }

  /// Writes `text` and a newline to standard output at once.
  static func line(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
  }
}
