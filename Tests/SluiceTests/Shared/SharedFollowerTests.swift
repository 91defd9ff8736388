import Foundation
import Testing

@testable import Sluice

/// The follower's snapshot check: a node compares its states with the snapshot that stayed
/// after an entry, even when another node saved it between this node's look and its save.
@Suite struct SharedFollowerTests {
  @Test func aNodeWhoseSaveLostTheRaceComparesWithTheSnapshotThatStayed() async throws {
    let engine = RacingSnapshotEngine()
    let (lane, _) = try await SharedLaneTests.snapshotted(engine, name: "a")
    for index in 0..<10 { lane.dispatcher.dispatch(SharedLaneTests.Add(text: "\(index)")) }
    #expect(await SharedLaneTests().eventually { lane.stopReason != nil })
    guard case .divergence(let sequence, _, _)? = lane.stopReason?.kind else {
      Issue.record("expected a divergence, got \(String(describing: lane.stopReason))")
      return
    }
    #expect(sequence == 10)
    #expect(engine.rivals.withLock { $0 } == 1)
    await lane.stop()
  }
}

/// An in-memory log where another node saves a snapshot of other states just before each save
/// of this node: the race of two nodes that both found no snapshot after an entry.
final class RacingSnapshotEngine: SharedSnapshotEngine {
  let inner = InMemoryLogEngine()
  let rivals = Guarded(0)

  func append(_ records: [SharedLogRecord]) async throws -> [UInt64] {
    await inner.append(records)
  }

  func entries(after sequence: UInt64, limit: Int) async throws -> [SharedLogEntry] {
    await inner.entries(after: sequence, limit: limit)
  }

  func head() async throws -> UInt64 { await inner.head() }

  func waitForEntries(after sequence: UInt64, timeout: Duration) async throws {
    await inner.waitForEntries(after: sequence, timeout: timeout)
  }

  func latestSnapshot() async throws -> SharedSnapshot? { await inner.latestSnapshot() }

  func snapshot(at sequence: UInt64) async throws -> SharedSnapshot? {
    await inner.snapshot(at: sequence)
  }

  func saveSnapshot(_ snapshot: SharedSnapshot) async throws {
    let other = snapshot.states.mapValues { _ in Data(#"["another node's"]"#.utf8) }
    await inner.saveSnapshot(
      SharedSnapshot(sequence: snapshot.sequence, states: other, origins: snapshot.origins))
    rivals.withLock { $0 += 1 }
    await inner.saveSnapshot(snapshot)
  }
}
