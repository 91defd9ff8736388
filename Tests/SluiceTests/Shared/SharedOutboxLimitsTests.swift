import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// The outbox sends its backlog in capped batches, splits a batch that fails, and holds a
/// bounded number of actions without dropping any.
@Suite struct SharedOutboxLimitsTests {
  typealias Add = SharedLaneTests.Add

  static let counter = Reducer<Int>().on(Add.self) { count, _ in count += 1 }

  /// `body`'s value, or `nil` when it did not return within ``hangGuard``, whose
  /// expiry means the outbox never got its actions through.
  static func guarded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> T? {
    let (outcomes, outcome) = AsyncStream<T?>.makeStream()
    let work = Task { outcome.yield(try? await body()) }
    let timer = Task {
      try? await Task.sleep(for: hangGuard)
      outcome.yield(nil)
    }
    defer {
      work.cancel()
      timer.cancel()
    }
    for await first in outcomes { return first }
    return nil
  }

  /// The origin sequences of the log's `test.add` entries, in log order, and whether the log
  /// is contiguous from 1.
  static func appended(_ engine: FlakyLogEngine) async -> (origins: [UInt64], contiguous: Bool) {
    let entries = await engine.inner.entries(of: "default", after: 0, limit: 1_000_000)
    let contiguous = entries.map(\.sequence) == Array(1...UInt64(max(entries.count, 1)))
    return (
      entries.filter { $0.record.name == "test.add" }.map(\.record.originSequence), contiguous
    )
  }

  @Test func aLongBacklogIsAppendedInCappedBatchesInOrderEachOnce() async throws {
    let engine = FlakyLogEngine()
    let issues = IssueReporter.collecting()
    let lane = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: "n",
      reporter: issues)
    let store = Store(initialState: 0, dispatcher: lane.dispatcher, reducer: Self.counter)
    try await lane.start()
    engine.mode.withLock { $0 = .down }
    let count = 200_000
    for index in 0..<count { store.dispatch(Add(text: "\(index)")) }
    #expect(lane.pendingCount == count)
    // Past the bound (100,000 by default) a dispatch queues all the same, reported once.
    #expect(issues.issues.map(\.kind) == [.queueBoundExceeded])
    engine.mode.withLock { $0 = .up }
    let flushed = await Self.guarded { try await lane.flush() } != nil
    #expect(flushed, "the backlog went through")
    let (origins, contiguous) = await Self.appended(engine)
    #expect(contiguous)
    #expect(origins == Array(1...UInt64(count)))
    #expect(store.state == count)
    #expect(engine.largestBatch.withLock { $0 } <= 1_000, "the default batchCount")
    await lane.stop()
  }

  @Test func aBatchTheEngineRefusesForItsSizeIsSplit() async throws {
    let engine = FlakyLogEngine()
    engine.failsAbove.withLock { $0 = 100 }
    let lane = try SharedLane(engine: engine, actions: SharedLaneTests.actions, node: "n")
    let store = Store(initialState: 0, dispatcher: lane.dispatcher, reducer: Self.counter)
    try await lane.start()
    engine.mode.withLock { $0 = .down }
    for index in 0..<1_000 { store.dispatch(Add(text: "\(index)")) }
    engine.mode.withLock { $0 = .up }
    let flushed = await Self.guarded { try await lane.flush() } != nil
    #expect(flushed, "the batches got under the engine's size")
    #expect(await Self.appended(engine).origins == Array(1...1_000))
    #expect(store.state == 1_000)
    await lane.stop()
  }

  @Test func aFullOutboxMakesSendWaitAndDispatchReportWithoutDroppingAnything() async throws {
    let engine = FlakyLogEngine()
    let issues = IssueReporter.collecting()
    let lane = try SharedLane(
      engine: engine, actions: SharedLaneTests.actions, node: "n",
      batchCount: 2, batchBytes: 1, pending: 3,
      reporter: issues)
    let store = Store(initialState: 0, dispatcher: lane.dispatcher, reducer: Self.counter)
    try await lane.start()
    engine.mode.withLock { $0 = .down }
    for index in 0..<5 { store.dispatch(Add(text: "\(index)")) }
    #expect(lane.pendingCount == 5)
    #expect(issues.issues.map(\.kind) == [.queueBoundExceeded])
    let sent = Task { try await lane.send(Add(text: "sent")) }
    engine.mode.withLock { $0 = .up }
    let number = await Self.guarded { try await sent.value }
    #expect(number == 6)
    #expect(await Self.appended(engine).origins == Array(1...6))
    // A batch of at most one action: each is larger than a byte.
    #expect(engine.largestBatch.withLock { $0 } == 1)
    #expect(issues.issues.count == 1)
    await lane.stop()
  }
}
