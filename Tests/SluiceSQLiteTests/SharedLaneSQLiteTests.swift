import Foundation
import Sluice
import SluiceSQLite
import SluiceTestSupport
import Testing

/// Nodes of one shared lane, each with its own connection to one SQLite file (as processes of
/// one machine would have), reach the same states in the log's order.
@Suite struct SharedLaneSQLiteTests {
  struct Append: Action, Codable { let node: Int, index: Int }

  static let actions = SharedActions().register(Append.self, as: "test.append")
  static let reducer = Reducer<[String]>().on(Append.self) { state, action in
    state.append("\(action.node).\(action.index)")
  }

  @Test func nodesOnOneFileApplyTheSameLog() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("lane.sqlite")
    var lanes: [SharedLane] = []
    var stores: [Store<[String]>] = []
    for node in 0..<3 {
      let lane = try SharedLane(
        engine: try SQLiteLogEngine(path: path), actions: Self.actions, node: "node\(node)")
      stores.append(Store(initialState: [], dispatcher: lane.dispatcher, reducer: Self.reducer))
      try await lane.start()
      lanes.append(lane)
    }
    let started = lanes
    await withTaskGroup(of: Void.self) { group in
      for (node, lane) in started.enumerated() {
        group.addTask {
          for index in 0..<100 { lane.dispatcher.dispatch(Append(node: node, index: index)) }
          _ = try? await lane.flush()
        }
      }
    }
    for lane in lanes { try await lane.flush() }
    #expect(stores[0].state.count == 300)
    #expect(stores[1].state == stores[0].state)
    #expect(stores[2].state == stores[0].state)
    for node in 0..<3 {
      #expect(
        stores[0].state.filter { $0.hasPrefix("\(node).") } == (0..<100).map { "\(node).\($0)" })
    }
    let log = try SQLiteLogEngine(path: path)
    #expect(
      try await log.entries(after: 0, limit: 1_000).map(\.sequence)
        == Array(1...(try await log.head())))
    for lane in lanes { await lane.stop() }
  }
}

extension SharedLaneSQLiteTests {
  @Test func snapshotsAreSavedInTheFileAndANewNodeStartsFromThem() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("lane.sqlite")
    let first = try SharedLane(
      engine: try SQLiteLogEngine(path: path), actions: Self.actions, node: "first",
      snapshotInterval: 50)
    let store = Store(initialState: [String](), dispatcher: first.dispatcher, reducer: Self.reducer)
    try first.share(store, as: "appends")
    try await first.start()
    for index in 0..<120 { store.dispatch(Append(node: 0, index: index)) }
    try await first.flush()
    let log = try SQLiteLogEngine(path: path)
    let latest = try #require(try await log.latestSnapshot())
    #expect(latest.sequence == 100)
    #expect(latest.origins["first"] != nil)

    let reduced = Recorder()
    let counting = Reducer<[String]>().on(Append.self) { state, action in
      reduced.add()
      state.append("\(action.node).\(action.index)")
    }
    let second = try SharedLane(
      engine: try SQLiteLogEngine(path: path), actions: Self.actions, node: "second",
      snapshotInterval: 50)
    let copy = Store(initialState: [String](), dispatcher: second.dispatcher, reducer: counting)
    try second.share(copy, as: "appends")
    try await second.start()
    #expect(copy.state == store.state)
    #expect(reduced.count < 120)
    await first.stop()
    await second.stop()
  }

  /// Counts calls from any thread.
  final class Recorder: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
  }
}
