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
      try await log.entries(of: "default", after: 0, limit: 1_000).map(\.sequence)
        == Array(1...(try await log.head(of: "default"))))
    for lane in lanes { await lane.stop() }
  }
}

extension SharedLaneSQLiteTests {
  @Test func snapshotsAreSavedInTheFileAndANewNodeStartsFromThem() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("lane.sqlite")
    let started = try await SharedTextsNode.startLater { try SQLiteLogEngine(path: path) }
    #expect(started.mismatches.isEmpty, "\(started.mismatches)")
  }

  @Test func nodesOnOneFileWhoseStatesDifferAtASnapshotReportTheDivergence() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("lane.sqlite")
    #expect(try await SharedTextsNode.diverge { try SQLiteLogEngine(path: path) } == [20])
  }
}
