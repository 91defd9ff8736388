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

/// `SluiceCrashProbe --outbox <log> <outbox> <node> <count>`: one node of a shared lane on the
/// SQLite log `<log>`, keeping its outbox in the SQLite file `<outbox>`, for the outbox's crash
/// tests (Tests/SluiceSQLiteTests/SharedOutboxProcessTests.swift), which kill it with SIGKILL.
///
/// The node dispatches `Append(node, index)` for the indexes 0 to `count - 1`, in bursts of 1
/// to 16; after each burst it waits until the burst is durable (kept in the outbox or in the
/// log) and prints `durable <next index>`. Then it prints `done`, flushes, prints `flushed`, and
/// waits to be killed. Appends fail after 200 ms when another process holds the log's write
/// lock.
enum OutboxProbe {
  static func run(log: String, outbox: String, node: Int, count: Int) async -> Never {
    let lane: SharedLane
    let store: Store<SharedLaneProbe.State>
    do {
      lane = try SharedLane(
        engine: try SQLiteLogEngine(path: log, busyTimeout: .milliseconds(200)),
        actions: SharedActions().register(SharedLaneProbe.Append.self, as: "probe.append"),
        node: "node\(node)", outbox: try SQLiteOutboxStore(path: outbox))
      store = Store(
        initialState: SharedLaneProbe.State(), dispatcher: lane.dispatcher,
        reducer: SharedLaneProbe.reducer)
      try await lane.start()
    } catch {
      fail("cannot start the shared lane: \(error)")
    }
    var next = 0
    while next < count {
      let burst = min(Int.random(in: 1...16), count - next)
      for index in next..<(next + burst) {
        store.dispatch(SharedLaneProbe.Append(node: node, index: index))
      }
      do { try await lane.waitUntilDurable() } catch { fail("not durable: \(error)") }
      next += burst
      SharedLaneProbe.line("durable \(next)")
    }
    SharedLaneProbe.line("done")
    do { try await lane.flush() } catch { fail("flush failed: \(error)") }
    SharedLaneProbe.line("flushed")
    while true { try? await Task.sleep(for: .seconds(60)) }
  }
}
