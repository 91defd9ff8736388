import Clocks
import Foundation
import Testing

@testable import Sluice

/// A node's life: start, stop, start again; any snapshot interval.
@Suite struct SharedLaneLifecycleTests {
  typealias Add = SharedLaneTests.Add

  @Test func aNodeStartedAgainAfterStopAppendsAndAppliesEachEntryOnce() async throws {
    let engine = InMemoryLogEngine()
    let node = try SharedLaneTests.Node(engine, name: "a")
    let other = try SharedLaneTests.Node(engine, name: "b")
    try await node.lane.start()
    try await other.lane.start()
    #expect(try await node.lane.send(Add(text: "one")) == 1)
    await node.lane.stop()
    // While it is stopped: the log goes on, and what it is given waits in its outbox.
    try await other.lane.send(Add(text: "two"))
    node.store.dispatch(Add(text: "queued"))
    try await node.lane.start()
    #expect(try await node.lane.send(Add(text: "three")) == 4)
    #expect(node.store.state == ["one", "two", "queued", "three"])
    try await other.lane.flush()
    #expect(other.store.state == ["one", "two", "queued", "three"])
    await node.lane.stop()
    await other.lane.stop()
  }

  @Test func theLargestSnapshotIntervalStarts() async throws {
    let engine = InMemoryLogEngine()
    let node = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: "a", snapshotInterval: .max)
    let store = Store(
      initialState: [String](), dispatcher: node.dispatcher, reducer: SharedLaneTests.reducer)
    try node.share(store, as: "list")
    try await node.start()
    try await node.send(Add(text: "one"))
    #expect(store.state == ["one"])
    await node.stop()
  }
}

extension SharedLaneLifecycleTests {
  @Test func aNodeStartedDuringAnOutageReportsItAndStartsOnceTheEngineIsBack() async throws {
    let engine = FlakyLogEngine()
    engine.headFails.withLock { $0 = true }
    // Retries on the lane's clock: an immediate one, so that no retry waits for an advance the
    // test could make before the retry sleeps.
    let clock = ImmediateClock()
    let lane = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: "a", clock: clock)
    let store = Store(
      initialState: [String](), dispatcher: lane.dispatcher, reducer: SharedLaneTests.reducer)
    let errors = lane.dispatcher.errors.events
    let started = Task { try await lane.start() }
    let outage = await SharedOutboxLimitsTests.guarded { () async -> ErrorEvent? in
      for await event in errors { return event }
      return nil
    }
    #expect(outage??.error is FlakyLogEngine.Down)
    // Retried until the engine is back, reported once.
    engine.headFails.withLock { $0 = false }
    let done: Void? = await SharedOutboxLimitsTests.guarded { try await started.value }
    #expect(done != nil, "the node started once the engine was back")
    guard done != nil else { return }
    try await lane.send(SharedLaneTests.Add(text: "one"))
    #expect(store.state == ["one"])
    #expect(lane.dispatcher.errors.totalCount == 1)
    await lane.stop()
  }
}
