import Foundation
import Sluice
import SluicePostgresTestSupport
import SluiceTestSupport
import Testing

@testable import SluicePostgres

/// Nodes of one shared lane, each with its own engine on one PostgreSQL database (as nodes on
/// several machines would have): a node that starts later restores the newest snapshot, and
/// nodes whose states differ at a snapshot report it.
@Suite(.requiresPostgres, .postgresServer)
struct SharedLanePostgresTests {
  @Test func aNodeThatStartsLaterRestoresTheSnapshotAndReachesTheSameState() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let started = try await SharedTextsNode.startLater {
      PostgresLogEngine(configuration: configuration)
    }
    #expect(started.mismatches.isEmpty, "\(started.mismatches)")
  }

  @Test func nodesWhoseStatesDifferAtASnapshotReportTheDivergence() async throws {
    let configuration = try await PostgresServer.required.makeDatabase()
    let stops = try await SharedTextsNode.diverge {
      PostgresLogEngine(configuration: configuration)
    }
    #expect(stops == [20])
  }
}
