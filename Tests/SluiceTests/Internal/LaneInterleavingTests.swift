import Foundation
import Testing

@testable import Sluice

/// The model check of the lane: every interleaving of small scenarios (two or three threads,
/// two or three operations each) over the pure ``LaneStateMachine``, checked by ``LaneModel``.
///
/// About 236,000 states in all (12,700 in the scenarios that detach stores, 8,100 with batches
/// of 2 or 3 items, 4,300 with a bounded queue), about 7 s in a debug build. The explorations
/// run one after another, each on a dedicated thread, so they never occupy the cooperative pool
/// other tests need.
@Suite(.serialized) struct LaneInterleavingTests {
  typealias Op = LaneModel.Op

  /// Explores `threads` off the pool and returns the model.
  func explore(
    _ threads: [[Op]], scripts: [String: [LaneModel.Inside]] = [:], stores: [String] = [],
    maxQueueDepth: Int? = nil, batch: Int = 1, fault: LaneModel.Fault? = nil
  ) async -> LaneModel {
    await withCheckedContinuation { continuation in
      // A dedicated thread, so the exploration never occupies the cooperative pool other tests
      // need. It runs at normal priority: it needs a few seconds of CPU, and a thread of the
      // lowest priority got about 1.5 % of a core beside two CPU-bound processes, which made
      // the check take many minutes on a busy machine.
      Thread {
        var model = LaneModel(scripts: scripts, stores: stores, batch: batch, fault: fault)
        model.explore(threads, maxQueueDepth: maxQueueDepth)
        continuation.resume(returning: model)
      }.start()
    }
  }

  /// Explores `threads` and expects no broken promise.
  func expectSound(
    _ threads: [[Op]], scripts: [String: [LaneModel.Inside]] = [:], stores: [String] = [],
    maxQueueDepth: Int? = nil, batch: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let model = await explore(
      threads, scripts: scripts, stores: stores, maxQueueDepth: maxQueueDepth, batch: batch)
    #expect(
      model.failures.isEmpty, "\(model.failures.joined(separator: "\n"))",
      sourceLocation: sourceLocation)
    #expect(model.finalStates > 0, sourceLocation: sourceLocation)
  }

  @Test func theCheckFindsALostWakeUp() async {
    // The same scenario as below, with the broadcasts that wake blocked threads dropped: the
    // explorer must report the threads left asleep.
    let model = await explore(
      [[.sync("a1"), .sync("a2")], [.sync("b1")]], fault: .dropBroadcasts)
    #expect(model.failures.contains { $0.hasPrefix("deadlock") })
  }

  /// Issue 24 (Design): the machine knows who is parked, and its wakes name exactly the parked
  /// threads that have an outcome. A thread that slept without parking would sleep on with its
  /// outcome, as nobody signals it.
  @Test func theCheckFindsAThreadAsleepWithItsOutcome() async {
    let model = await explore(
      [[.sync("a1"), .sync("a2")], [.sync("b1")]], fault: .sleepsUnparked)
    #expect(
      model.failures.contains { $0.contains("sleeps with its outcome and was not signalled") })
  }

  @Test func theCheckFindsAWaiterReleasedTooEarly() async {
    // A machine that woke every blocked thread at once, whatever its chain, would return from
    // `dispatch` before the action ran.
    let model = await explore([[.sync("a")], [.sync("b")]], fault: .finishEveryWaiterAtOnce)
    #expect(model.failures.contains { $0.contains("returned before") })
  }

  /// Issue 24, defect 4: the lane is handed to a blocked caller when the drainer's chain is done;
  /// a caller that comes before that thread runs takes the lane instead of waiting for it (under
  /// contention, a woken thread may wait long for a core).
  @Test func aRunningCallerNeverWaitsForALaneHandedToASleepingThread() async {
    await expectSound(
      [[.sync("a")], [.sync("b1"), .sync("b2")], [.sync("c1"), .sync("c2")]],
      scripts: ["a": [.dispatch("a.1")]])
  }

  @Test func theCheckFindsAWakeBeforeTheHooksRan() async {
    // A drainer that decides on its own when to run the hooks (the machine never hears of
    // them) lets a caller return before the change its action made is written.
    let model = await explore(
      [[.async("w"), .sync("a")], [.pause(1), .release(1)]],
      scripts: ["a": [.armHook, .dispatch("a.1")]], fault: .hooksUnknownToMachine)
    #expect(model.failures.contains { $0.contains("before the hooks armed by") })
  }

  /// Issue 24, defect 2: a lock taken from a third thread releases a blocked caller whose chain
  /// it holds, while its action's hook is armed: the hooks run first, then the caller wakes.
  @Test func beforeWakeHooksRunBeforeEveryWakeAndLetGo() async {
    await expectSound(
      [[.async("w"), .sync("a")], [.pause(1), .release(1)], [.sync("b")]],
      scripts: ["w": [.armHook], "a": [.armHook, .dispatch("a.1")], "b": [.armHook]])
  }

  @Test func beforeWakeHooksWithChainsAndSenders() async {
    await expectSound(
      [[.sync("a")], [.send("b")], [.pause(1), .release(1)]],
      scripts: ["a": [.dispatch("a.1")], "a.1": [.armHook], "b": [.armHook, .dispatch("b.1")]])
  }

  @Test func theCheckFindsACoreReleasedWhileARouteLeadsToIt() async {
    // A lane that released a detached core at once, whoever runs the lane, frees a store the
    // running item still reduces into.
    let model = await explore(
      [[.sync("a")], [.detach("s1")]], stores: ["s1"], fault: .releaseDetachedAtOnce)
    #expect(model.failures.contains { $0.contains("while routes to it run") })
  }

  @Test func theCheckFindsARetiredCoreNeverReleased() async {
    let model = await explore(
      [[.sync("a")], [.detach("s1")]], stores: ["s1"], fault: .keepRetiredAtLetGo)
    #expect(model.failures.contains { $0.hasPrefix("never released") })
  }

  /// Issue 24 (Design): retiring a store's core is decided by the machine. Cores detached from
  /// outside and from inside the lane, while it is idle, held through the shortcut, drained by a
  /// caller or the worker, or handed to a sleeping thread: each is released once, when no route
  /// to it can be followed any more, and none is kept once the lane is idle.
  @Test func storeCoresAreReleasedOnlyWhenNoRouteLeadsToThem() async {
    await expectSound(
      [[.sync("a"), .sync("b")], [.detach("s1"), .async("c")], [.sync("d")]],
      scripts: ["a": [.dispatch("a.1")], "c": [.detach("s2")]], stores: ["s1", "s2"])
  }

  @Test func storeCoresRetiredAroundLocksAndHooks() async {
    await expectSound(
      [[.send("a")], [.pause(1), .detach("s1"), .release(1)], [.sync("b")]],
      scripts: ["a": [.armHook, .dispatch("a.1")], "b": [.detach("s2")]], stores: ["s1", "s2"])
  }

  @Test func theCheckFindsABatchThatRunsOnAfterALockWasTaken() async {
    // A drainer that ran its whole batch, whatever the machine says, would run a queued action
    // after another thread's `pause()` returned.
    let model = await explore(
      [[.pause(1), .async("a"), .async("b"), .async("c"), .release(1)], [.pause(2)]],
      batch: 3, fault: .batchIgnoresPause)
    #expect(model.failures.contains { $0.contains("while a lock holds the lane") })
  }

  /// Issue 24 (Speed): a drainer runs up to a batch of its chain's queued items per transition.
  /// A lock or an exclusive action from another thread, a bypass item dispatched from inside, an
  /// armed hook, a detached store or a sender waiting for room stops the batch at the next item;
  /// what it did not run stays queued, in order.
  @Test func batchesStopAtLocksBypassItemsHooksAndRetirement() async {
    let held: [Op] = [.pause(1), .async("a"), .async("b"), .async("c"), .release(1)]
    await expectSound(
      [held, [.exclusive("x", lock: 2), .release(2)]],
      scripts: ["a": [.dispatch("a.1")], "b": [.armHook]], batch: 3)
    await expectSound(
      [[.sync("a")], [.pause(1), .release(1)], [.async("w")]],
      scripts: [
        "a": [.dispatch("a.1"), .dispatch("a.2"), .dispatch("a.3")],
        "a.2": [.armHook, .dispatchBypass("y")],
      ],
      batch: 2)
    await expectSound(
      [held, [.detach("s1"), .sync("d")]], scripts: ["b": [.detach("s2")]],
      stores: ["s1", "s2"], batch: 2)
    await expectSound([held, [.send("s1"), .send("s2")]], maxQueueDepth: 2, batch: 3)
  }

  @Test func synchronousDispatchesFromThreeThreads() async {
    await expectSound([[.sync("a1"), .sync("a2")], [.sync("b1"), .sync("b2")], [.sync("c1")]])
  }

  @Test func synchronousAndAsynchronousDispatchesWithFollowUps() async {
    await expectSound(
      [[.sync("a"), .async("b")], [.async("c"), .sync("d")], [.send("e")]],
      scripts: ["a": [.dispatch("a.1")], "c": [.dispatch("c.1")], "e": [.dispatch("e.1")]])
  }

  @Test func chainsOfFollowUpsOnEveryPath() async {
    await expectSound(
      [[.sync("a")], [.sync("b")], [.async("c")]],
      scripts: [
        "a": [.dispatch("a.1"), .dispatch("a.2")], "a.1": [.dispatch("a.1.1")],
        "b": [.dispatch("b.1")], "c": [.dispatch("c.1")],
      ])
  }

  /// Defect 1: `exclusive` from one thread while another holds the lane, where the exclusive
  /// action's observer dispatches a follow-up.
  @Test func anExclusiveActionWhoseFollowUpWaitsForTheLockWhileAnotherThreadHoldsTheLane() async {
    await expectSound(
      [[.sync("slow")], [.exclusive("x", lock: 1), .release(1)], [.sync("y")]],
      scripts: ["slow": [.dispatch("slow.1")], "x": [.dispatch("x.follow")]])
  }

  /// Defect 2: a synchronous dispatch whose observer asks for an exclusive action, while
  /// another thread holds the lane.
  @Test func aDispatchWhoseObserverAsksForAnExclusiveAction() async {
    await expectSound(
      [[.sync("a")], [.sync("b")], [.release(1)]],
      scripts: [
        "a": [.pause(1), .dispatchBypass("x")], "x": [.dispatch("x.follow")],
        "b": [.dispatch("b.1")],
      ])
  }

  @Test func locksTakenAndReleasedFromOutsideAndInside() async {
    await expectSound(
      [[.pause(1), .sync("a"), .release(1)], [.sync("b"), .async("c")], [.send("d")]],
      scripts: ["b": [.pause(2)], "c": [.release(2)], "d": [.dispatch("d.1")]])
  }

  @Test func twoLocksAndAnExclusiveAction() async {
    await expectSound(
      [[.pause(1), .release(1)], [.exclusive("x", lock: 2), .release(2)], [.sync("a")]],
      scripts: ["x": [.dispatch("x.1")], "a": [.dispatch("a.1")]])
  }

  @Test func aThreadDrainingAnotherLaneNeverBlocks() async {
    await expectSound(
      [
        [.syncFromOtherLane("a"), .syncFromOtherLane("b")], [.sync("c")], [.pause(1), .release(1)],
      ],
      scripts: ["a": [.dispatch("a.1")], "c": [.dispatch("c.1")]])
  }

  /// Defect 11: a synchronous caller returns once its own chain is done, while other threads keep
  /// queueing work.
  @Test func aSynchronousCallerIsNotMadeToDrainEveryoneElsesWork() async {
    await expectSound(
      [[.sync("a")], [.async("b1"), .async("b2")], [.async("c1"), .sync("c2")]],
      scripts: ["a": [.dispatch("a.1")]])
  }

  @Test func sendersWaitingForRoomBelowTheBound() async {
    await expectSound(
      [[.send("a"), .send("b")], [.async("c"), .async("d")], [.pause(1), .release(1)]],
      maxQueueDepth: 1)
  }

  @Test func anOverflowIsReportedOncePerExcursionPastTheBound() async {
    let threads: [[Op]] = [[.async("a"), .async("b"), .sync("c")], [.async("d"), .pause(1)]]
    await expectSound(threads, scripts: ["a": [.dispatch("a.1")]], maxQueueDepth: 1)
    let model = await explore(threads, maxQueueDepth: 1, fault: .overflowUnreported)
    #expect(model.failures.contains { $0.contains("nobody reported it") })
  }

  @Test func anItemReleasingALockAnotherThreadTookLetsEverythingRun() async {
    // The lock is taken by one thread and released by another thread's item, in either order;
    // whatever is left held is released by the explorer's cleanup.
    await expectSound(
      [[.sync("a")], [.pause(1)], [.sync("b")]], scripts: ["a": [.release(1)]])
  }
}
