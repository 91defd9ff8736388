import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

/// Nodes of several shared lanes, each with its own connection to one SQLite file (as
/// processes of one machine would have), reach in each lane the same states in that lane's
/// order.
@Suite struct SharedLaneSQLiteTests {
  struct Append: Action, Codable { let node: Int, index: Int }

  static let actions = SharedActions().register(Append.self, as: "test.append")
  static let reducer = Reducer<[String]>().on(Append.self) { state, action in
    state.append("\(action.node).\(action.index)")
  }

  /// One lane's nodes, named alike in every lane.
  struct LaneNodes {
    let name: String
    var lanes: [SharedLane] = []
    var stores: [Store<[String]>] = []
  }

  @Test func nodesOfSeveralLanesOnOneFileApplyEachLanesLog() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path("lanes.sqlite")
    var all: [LaneNodes] = []
    for name in ["default", "room-1", "room-2"] {
      var nodes = LaneNodes(name: name)
      for node in 0..<3 {
        let lane = try SharedLane(
          engine: try SQLiteLogEngine(path: path), lane: name, actions: Self.actions,
          node: "node\(node)")
        nodes.stores.append(
          Store(initialState: [], dispatcher: lane.dispatcher, reducer: Self.reducer))
        try await lane.start()
        nodes.lanes.append(lane)
      }
      all.append(nodes)
    }
    // Every node of every lane at once: dispatches, then sends whose numbers are kept.
    let acknowledged = await withTaskGroup(of: [(String, UInt64, String)].self) { group in
      for nodes in all {
        for (node, lane) in nodes.lanes.enumerated() {
          group.addTask { [name = nodes.name] in
            for index in 0..<50 { lane.dispatcher.dispatch(Append(node: node, index: index)) }
            var sent: [(String, UInt64, String)] = []
            for index in 50..<60 {
              if let number = try? await lane.send(Append(node: node, index: index)) {
                sent.append((name, number, "\(node).\(index)"))
              }
            }
            _ = try? await lane.flush()
            return sent
          }
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(acknowledged.count == 90)
    let log = try SQLiteLogEngine(path: path)
    for nodes in all {
      for lane in nodes.lanes { try await lane.flush() }
      let stores = nodes.stores
      #expect(stores[0].state.count == 180, "\(nodes.name)")
      #expect(stores[1].state == stores[0].state, "\(nodes.name)")
      #expect(stores[2].state == stores[0].state, "\(nodes.name)")
      for node in 0..<3 {
        #expect(
          stores[0].state.filter { $0.hasPrefix("\(node).") } == (0..<60).map { "\(node).\($0)" })
      }
      let entries = try await log.entries(of: nodes.name, after: 0, limit: 1_000)
      #expect(entries.map(\.sequence) == Array(1...(try await log.head(of: nodes.name))))
      // Each acknowledged action is in its lane once, at the number it was acknowledged with.
      let appended = entries.compactMap { entry in
        (try? JSONDecoder().decode(Append.self, from: entry.record.payload)).map {
          (entry.sequence, "\($0.node).\($0.index)")
        }
      }
      for (_, number, text) in acknowledged.filter({ $0.0 == nodes.name }) {
        #expect(appended.filter { $0.1 == text }.map(\.0) == [number], "\(nodes.name) \(text)")
      }
      for lane in nodes.lanes { await lane.stop() }
    }
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
