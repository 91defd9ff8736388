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
final class RacingSnapshotEngine: ForwardingLogEngine {
  let inner = InMemoryLogEngine()
  let rivals = Guarded(0)

  func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws {
    let other = snapshot.states.mapValues { _ in Data(#"["another node's"]"#.utf8) }
    try await inner.saveSnapshot(
      SharedSnapshot(sequence: snapshot.sequence, states: other, origins: snapshot.origins),
      to: lane)
    rivals.withLock { $0 += 1 }
    try await inner.saveSnapshot(snapshot, to: lane)
  }
}
