import Testing

@testable import Sluice

/// Each transition of the lane's state machine, on its own. Payloads and resumers are names;
/// locks are numbers.
@Suite struct LaneStateMachineTests {
  typealias Machine = LaneStateMachine<String, String, Int, String>

  /// Runs the drainer until it stops; returns the payloads it ran and everything it woke.
  func drainAll(_ machine: inout Machine) -> (ran: [String], wake: Machine.Wake, worker: Bool) {
    var ran: [String] = []
    var wake = Machine.Wake()
    var (more, step) = machine.next()
    wake.formUnion(more)
    while case .run(let item) = step {
      ran.append(item.payload)
      wake.formUnion(machine.finish(item))
      (more, step) = machine.next()
      wake.formUnion(more)
    }
    guard case .stop(let worker, _) = step else { return (ran, wake, false) }
    return (ran, wake, worker)
  }

  /// The drainer's next step, which must be to let go without starting the worker; returns whom
  /// it woke.
  func letGo(
    _ machine: inout Machine, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Machine.Wake {
    let (wake, step) = machine.next()
    guard case .stop(scheduleWorker: false, retired: _) = step else {
      Issue.record("expected the drainer to let go, got \(step)", sourceLocation: sourceLocation)
      return wake
    }
    return wake
  }

  /// Pops the next item (the caller is the drainer).
  func nextItem(_ machine: inout Machine) -> Machine.Item? {
    guard case .run(let item) = machine.next().1 else { return nil }
    return item
  }

  /// Issue 24 (Speed): the drainer is lent the items of its chain queued after its item; a lock
  /// taken meanwhile asks it to stop, and what it did not run stays queued, in order.
  @Test func aBatchStopsAtALockAndLeavesWhatItDidNotRunQueued() {
    var machine = Machine()
    _ = machine.pause(1)
    for name in ["a", "b", "c", "d"] {
      _ = machine.submit(name, bypass: false, completion: .none).action
    }
    #expect(machine.release(1, caller: .block, barrier: "barrier") == .drain)
    guard let first = nextItem(&machine) else {
      Issue.record("nothing to run")
      return
    }
    var batch: [Machine.Item] = []
    machine.lend(after: first, upTo: 2, into: &batch)
    #expect(batch.map(\.payload) == ["b", "c"])
    #expect(machine.queueDepth == 4)
    _ = machine.pause(2)
    #expect(machine.batchStopped)
    // The drainer ran "a" and "b", then saw the stop.
    _ = machine.finish(first)
    _ = machine.finishLent(batch, ran: 1)
    #expect(!machine.batchStopped)
    #expect(machine.main.elements.map(\.payload) == ["c", "d", "barrier"])
    #expect(machine.roots.values.map(\.outstanding) == [3])
  }

  @Test func anAsynchronousItemOnAnIdleLaneStartsTheWorker() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .none).action
      #expect(action == .scheduleWorker)
    }
    #expect(machine.drainer == .worker(started: false))
    #expect(machine.needsAttention)
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let started = machine.startWorker()
      #expect(!started)
    }
    let drained = drainAll(&machine)
    #expect(drained.ran == ["a"])
    #expect(machine.isIdle)
    #expect(!machine.needsAttention)
  }

  @Test func aSynchronousCallerOnAnIdleLaneDrainsItsOwnItem() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .block).action
      #expect(action == .drain)
    }
    #expect(machine.drainer == .caller(1))
    let drained = drainAll(&machine)
    #expect(drained.ran == ["a"])
    #expect(machine.roots.isEmpty)
    #expect(machine.isIdle)
  }

  /// Issue 24, defect 4: the lane handed to a blocked caller that has not run yet is taken over
  /// by a caller that comes first; the heir sleeps on and is woken when its chain ran.
  @Test func aCallerTakesOverALaneHandedToAThreadThatHasNotRunYet() throws {
    var machine = Machine()
    let result1 = machine.submit("a", bypass: false, completion: .block).action
    #expect(result1 == .drain)
    let a = try #require(nextItem(&machine))
    let result2 = machine.submit("b", bypass: false, completion: .block).action
    #expect(result2 == .wait(2))
    #expect(machine.park(2) == nil)
    _ = machine.finish(a)
    // The caller's chain is done; it still runs b, queued before that (b's thread waits anyway).
    let b = try #require(nextItem(&machine))
    #expect(b.payload == "b")
    let result3 = machine.submit("c", bypass: false, completion: .block).action
    #expect(result3 == .wait(3))
    #expect(machine.park(3) == nil)
    let result4 = machine.finish(b)
    #expect(result4.threads == [2])
    let result5 = machine.park(2)
    #expect(result5 == .finished)
    // c came after: the lane is offered to c's thread, which sleeps until it is scheduled.
    #expect(letGo(&machine).threads == [3])
    #expect(machine.outcomes[3] == .drain)
    // d's caller runs now: it takes the lane instead of waiting for c's thread.
    let result6 = machine.submit("d", bypass: false, completion: .block).action
    #expect(result6 == .drain)
    #expect(machine.outcomes[3] == nil)
    // Its thread woke for the lane, finds no outcome, and parks again.
    let result7 = machine.park(3)
    #expect(result7 == nil)
    let drained = drainAll(&machine)
    #expect(drained.ran == ["c", "d"])
    #expect(drained.wake.threads == [3])
    let result8 = machine.park(3)
    #expect(result8 == .finished)
    #expect(machine.isIdle)
    #expect(machine.roots.isEmpty)
  }

  /// S12, the freed heir: the lane is handed to a blocked caller, then a lock from another
  /// thread holds the rest of its chain and releases it (its root closes; it keeps the lane).
  /// The lock is released after the heir took the lane: the heir drains as any caller whose chain
  /// is done (its old item, now of the release's chain), and returns before that item's
  /// follow-up ran; nothing waits for its released root, and every item runs once.
  @Test func anHeirALockReleasedDrainsAndReturnsBeforeTheRestOfItsOldChain() throws {
    var machine = Machine()
    #expect(machine.submit("a", bypass: false, completion: .block).action == .drain)
    #expect(machine.submit("b0", bypass: false, completion: .block).action == .wait(2))
    #expect(machine.park(2) == nil)
    let a = try #require(nextItem(&machine))
    _ = machine.finish(a)
    let b0 = try #require(nextItem(&machine))
    // Queued after the drainer's chain ended: "b"'s caller is to be the heir.
    #expect(machine.submit("b", bypass: false, completion: .block).action == .wait(3))
    #expect(machine.park(3) == nil)
    #expect(machine.finish(b0).threads == [2])
    #expect(machine.park(2) == .finished)
    #expect(letGo(&machine).threads == [3])
    // A lock from another thread holds "b": the heir's root closes, and it keeps the lane.
    #expect(machine.pause(1).isEmpty)
    #expect(machine.roots[3] == nil)
    #expect(machine.outcomes[3] == .drain)
    #expect(machine.park(3) == .drain)
    #expect(machine.drainer == .caller(3))
    // The lock goes before the heir runs an item: "b" joins the chain of the release's barrier.
    #expect(machine.release(1, caller: .block, barrier: "barrier") == .wait(4))
    #expect(machine.park(4) == nil)
    let b = try #require(nextItem(&machine))
    #expect(b.payload == "b")
    #expect(b.root == 4)
    #expect(machine.submitInside("b.1", bypass: false, current: b.root) == nil)
    _ = machine.finish(b)
    let barrier = try #require(nextItem(&machine))
    #expect(barrier.payload == "barrier")
    _ = machine.finish(barrier)
    // "b.1" came after the heir's chain ended: it hands the lane on and returns before it ran.
    #expect(letGo(&machine).threads == [4])
    #expect(machine.park(4) == .drain)
    let ran = [a, b0, b, barrier].map(\.payload) + drainAll(&machine).ran
    #expect(ran == ["a", "b0", "b", "barrier", "b.1"])
    #expect(machine.isIdle)
    #expect(machine.roots.isEmpty)
    #expect(machine.outcomes.isEmpty)
    #expect(machine.parked.isEmpty)
  }

  @Test func aSynchronousCallerOnABusyLaneWaitsAndIsWokenWhenItsItemRan() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .none).action
      #expect(action == .scheduleWorker)
    }
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block).action
      #expect(action == .wait(2))
    }
    #expect(machine.park(2) == nil)
    let drained = drainAll(&machine)
    #expect(drained.ran == ["a", "b"])
    #expect(drained.wake.threads == [2])
    do {
      let outcome = machine.park(2)
      #expect(outcome == .finished)
    }
    #expect(machine.parked.isEmpty)
  }

  @Test func aCallerTakesTheLaneFromAWorkerThatHasNotStarted() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none).action
    do {
      let action = machine.submit("b", bypass: false, completion: .block).action
      #expect(action == .drain)
    }
    #expect(drainAll(&machine).ran == ["a", "b"])
    // The worker's block, when it runs at last, is not needed.
    do {
      let started = machine.startWorker()
      #expect(!started)
    }
  }

  @Test func aCallerThatMustNotBlockReturnsAtOnceFromABusyLane() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none).action
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .noBlock).action
      #expect(action == .none)
    }
    #expect(machine.roots.isEmpty)
    #expect(drainAll(&machine).ran == ["a", "b"])
  }

  @Test func aSynchronousCallerReturnsAtOnceWhileALockHoldsTheLane() {
    var machine = Machine()
    do {
      let wake = machine.pause(1)
      #expect(wake.isEmpty)
    }
    do {
      let action = machine.submit("a", bypass: false, completion: .block).action
      #expect(action == .none)
    }
    #expect(machine.queueDepth == 1)
    #expect(!machine.hasRunnable)
  }

  @Test func aPauseReleasesABlockedCallerWhoseChainCanNoLongerRun() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none).action
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block).action
      #expect(action == .wait(2))
    }
    // Its thread has not parked yet: nobody to signal, it finds its outcome when it parks.
    let wake = machine.pause(1)
    #expect(wake.isEmpty)
    do {
      let outcome = machine.park(2)
      #expect(outcome == .finished)
    }
    // The worker finds nothing it may run.
    #expect(drainAll(&machine).ran == [])
  }

  @Test func aBypassItemRunsWhileALockHoldsTheLane() {
    var machine = Machine()
    _ = machine.pause(1)
    _ = machine.submit("held", bypass: false, completion: .block).action
    do {
      let action = machine.submit("exclusive", bypass: true, completion: .block).action
      #expect(action == .drain)
    }
    #expect(drainAll(&machine).ran == ["exclusive"])
    #expect(machine.queueDepth == 1)
  }

  @Test func releasingTheLastLockReplaysTheHeldItemsBehindABarrier() {
    var machine = Machine()
    _ = machine.pause(1)
    _ = machine.pause(2)
    _ = machine.submit("a", bypass: false, completion: .none).action
    _ = machine.submit("b", bypass: false, completion: .none).action
    do {
      let action = machine.release(1, caller: .block, barrier: "barrier")
      #expect(action == .none)
    }
    do {
      let action = machine.release(2, caller: .block, barrier: "barrier")
      #expect(action == .drain)
    }
    // The barrier's chain adopted the held items nobody waited for.
    #expect(machine.roots.values.first?.outstanding == 3)
    #expect(drainAll(&machine).ran == ["a", "b", "barrier"])
    #expect(machine.roots.isEmpty)
    // Idempotent: a lock released twice changes nothing.
    do {
      let action = machine.release(2, caller: .block, barrier: "barrier")
      #expect(action == .none)
    }
  }

  @Test func releasingWhileAnotherThreadDrainsWaitsOnlyWhenTheCallerMayBlock() {
    for (caller, expected) in [
      (Machine.ReleaseCaller.block, Machine.SubmitAction.wait(4)),
      (.noBlock, .none), (.drainer, .none),
    ] {
      var machine = Machine()
      _ = machine.submit("running", bypass: false, completion: .none).action
      do {
        let started = machine.startWorker()
        #expect(started)
      }
      _ = machine.pause(1)
      _ = machine.submit("held", bypass: false, completion: .none).action
      _ = machine.submit("held too", bypass: false, completion: .none).action
      do {
        let action = machine.release(1, caller: caller, barrier: "barrier")
        #expect(action == expected)
      }
      #expect(drainAll(&machine).ran.prefix(3) == ["running", "held", "held too"])
    }
  }

  @Test func anItemDispatchedFromInsideJoinsTheRunningItemsChain() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none).action
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block).action
      #expect(action == .wait(2))
    }
    #expect(machine.park(2) == nil)
    guard let a = nextItem(&machine) else {
      Issue.record("a did not run")
      return
    }
    do {
      let wake = machine.finish(a)
      #expect(wake.isEmpty)
    }
    guard let b = nextItem(&machine) else {
      Issue.record("b did not run")
      return
    }
    _ = machine.submitInside("b.1", bypass: false, current: b.root)
    #expect(machine.roots[2]?.outstanding == 2)
    do {
      let wake = machine.finish(b)
      #expect(wake.threads.isEmpty)
    }
    let drained = drainAll(&machine)
    #expect(drained.ran == ["b.1"])
    #expect(drained.wake.threads == [2])
  }

  @Test func theShortcutHolderFinishesThroughTheMachineWhenItsItemDispatched() {
    var machine = Machine()
    machine.syncShortcut(held: true)
    #expect(machine.drainer == .fast)
    #expect(!machine.needsAttention)
    let root = machine.openFastRoot()
    _ = machine.submitInside("follow-up", bypass: false, current: root)
    #expect(machine.needsAttention)
    let (_, step) = machine.finishFast(root: root)
    guard case .run(let item) = step else {
      Issue.record("the follow-up did not run")
      return
    }
    #expect(item.payload == "follow-up")
    do {
      let wake = machine.finish(item)
      #expect(wake.isEmpty)
    }
    #expect(drainAll(&machine).ran == [])
    #expect(machine.isIdle)
  }

  @Test func aShortcutHolderThatLetGoWithoutTheLockIsForgotten() {
    var machine = Machine()
    machine.syncShortcut(held: true)
    machine.syncShortcut(held: false)
    #expect(machine.isIdle)
  }

  @Test func aCallerWhoseChainIsDoneRunsWhatWasQueuedBeforeThenHandsOn() {
    var machine = Machine()
    #expect(machine.submit("mine", bypass: false, completion: .block).action == .drain)
    // Queued while the caller drains: a blocked caller, then an asynchronous item.
    #expect(machine.submit("theirs", bypass: false, completion: .block).action == .wait(2))
    #expect(machine.park(2) == nil)
    #expect(machine.submit("async", bypass: false, completion: .none).action == .none)
    guard let mine = nextItem(&machine) else {
      Issue.record("mine did not run")
      return
    }
    _ = machine.finish(mine)
    // Both were queued before the caller's chain was done: it runs them.
    guard let theirs = nextItem(&machine) else {
      Issue.record("theirs did not run")
      return
    }
    #expect(theirs.payload == "theirs")
    #expect(machine.finish(theirs).threads == [2])
    guard let async = nextItem(&machine) else {
      Issue.record("async did not run")
      return
    }
    #expect(async.payload == "async")
    _ = machine.finish(async)
    // Queued afterwards: the caller hands the lane to the thread that waits for it.
    #expect(machine.submit("later", bypass: false, completion: .block).action == .wait(4))
    #expect(machine.park(4) == nil)
    #expect(letGo(&machine).threads == [4])
    #expect(machine.park(4) == .drain)
    #expect(machine.drainer == .caller(4))
    #expect(drainAll(&machine).ran == ["later"])
  }

  @Test func aCallerHandsAsynchronousWorkBeyondItsBudgetToTheWorker() {
    var machine = Machine()
    #expect(machine.submit("mine", bypass: false, completion: .block).action == .drain)
    let flood = (0...Machine.extraBudget).map { "async \($0)" }
    for name in flood {
      #expect(machine.submit(name, bypass: false, completion: .none).action == .none)
    }
    var ran: [String] = []
    var step = machine.next().1
    while case .run(let item) = step {
      ran.append(item.payload)
      _ = machine.finish(item)
      step = machine.next().1
    }
    #expect(ran == ["mine"] + flood.dropLast())
    guard case .stop(scheduleWorker: true, retired: _) = step else {
      Issue.record("the worker was not asked for")
      return
    }
    #expect(machine.drainer == .worker(started: false))
    #expect(machine.queueDepth == 1)
  }

  @Test func aSenderIsResumedAfterItsChainEvenWhenALockHeldIt() {
    var machine = Machine()
    _ = machine.pause(1)
    do {
      let action = machine.submit("sent", bypass: false, completion: .resume("task")).action
      #expect(action == .none)
    }
    do {
      let action = machine.release(1, caller: .block, barrier: "barrier")
      #expect(action == .drain)
    }
    let drained = drainAll(&machine)
    #expect(drained.ran == ["sent", "barrier"])
    #expect(drained.wake.resumers == ["task"])
  }

  @Test func sendersWaitForRoomBelowTheBound() {
    var machine = Machine(maxQueueDepth: 1)
    let tookFirst = machine.reserveRoom(orWait: "first")
    #expect(tookFirst)
    _ = machine.pause(1)
    _ = machine.submitReserved("a", completion: .resume("first"))
    #expect(!machine.hasRoom)
    #expect(machine.reservedRoom == 0)
    let tookSecond = machine.reserveRoom(orWait: "second")
    #expect(!tookSecond)
    do {
      let action = machine.release(1, caller: .block, barrier: "barrier")
      #expect(action == .drain)
    }
    let drained = drainAll(&machine)
    #expect(drained.wake.resumers.contains("second"))
    // The woken sender holds the place it was woken for.
    #expect(machine.reservedRoom == 1)
    #expect(!machine.hasRoom)
  }

  /// Looking for room and taking it are one transition: of two senders that find one place,
  /// the second waits, even before the first submitted (a look, then a submit under a second
  /// lock, let both take it and the queue grow past the bound).
  @Test func twoSendersNeverTakeTheLastPlace() {
    var machine = Machine(maxQueueDepth: 2)
    _ = machine.pause(1)
    _ = machine.submit("queued", bypass: false, completion: .none).action
    let tookFirst = machine.reserveRoom(orWait: "first")
    #expect(tookFirst)
    let tookSecond = machine.reserveRoom(orWait: "second")
    #expect(!tookSecond)
    let tookThird = machine.reserveRoom(orWait: "third")
    #expect(!tookThird)
    _ = machine.submitReserved("sent", completion: .resume("first"))
    #expect(machine.mainDepth == 2)
    #expect(machine.capacityWaiters == ["second", "third"])
    // Items leave one at a time, and each place goes to the oldest waiter, reserved for it:
    // the queue and the reservations never pass the bound.
    #expect(machine.release(1, caller: .block, barrier: "barrier") == .drain)
    var woken: [String] = []
    var (wake, step) = machine.next()
    while true {
      woken += wake.resumers.filter { $0 != "first" }
      #expect(machine.mainDepth + machine.reservedRoom <= 2)
      guard case .run(let item) = step else { break }
      wake = machine.finish(item)
      woken += wake.resumers.filter { $0 != "first" }
      (wake, step) = machine.next()
    }
    #expect(woken == ["second", "third"])
    #expect(machine.capacityWaiters.isEmpty)
    #expect(machine.reservedRoom == 2)
  }

  /// Issue 24, defect 2: with hooks armed, the machine asks for them before it wakes anybody
  /// (also a caller a lock releases) or lets the drainer go.
  @Test func armedHooksRunBeforeAnyWakeAndBeforeTheDrainerLetsGo() throws {
    var machine = Machine()
    let result9 = machine.submit("w", bypass: false, completion: .none).action
    #expect(result9 == .scheduleWorker)
    let result10 = machine.startWorker()
    #expect(result10)
    let result11 = machine.submit("a", bypass: false, completion: .block).action
    #expect(result11 == .wait(2))
    #expect(machine.park(2) == nil)
    let w = try #require(nextItem(&machine))
    _ = machine.finish(w)
    let a = try #require(nextItem(&machine))
    _ = machine.submitInside("a.1", bypass: false, current: a.root)
    _ = machine.submit("q", bypass: true, completion: .none).action
    // "a" armed a hook and is not the last of its chain: nobody to wake yet; "q" runs.
    let result12 = machine.finish(a, hooksArmed: true)
    #expect(result12.isEmpty)
    let q = try #require(nextItem(&machine))
    #expect(q.payload == "q")
    // A lock from a third thread holds what is left of a's chain: its caller is released only
    // once the hooks ran.
    let result13 = machine.pause(1)
    #expect(result13.isEmpty)
    #expect(machine.outcomes[2] == nil)
    let result14 = machine.finish(q)
    #expect(result14.isEmpty)
    let (early, hooks) = machine.next()
    #expect(early.isEmpty)
    guard case .runHooks = hooks else {
      Issue.record("expected the hooks to run, got \(hooks)")
      return
    }
    let result15 = machine.hooksRan()
    #expect(result15.threads == [2])
    let result16 = machine.park(2)
    #expect(result16 == .finished)
    // Nothing can run (the lock holds "a.1"): the worker lets go.
    guard case .stop(scheduleWorker: false, retired: _) = machine.next().1 else {
      Issue.record("expected the worker to stop")
      return
    }
    #expect(machine.isIdle)
  }

  /// A core retired while no thread runs the lane comes back at once; one retired while a
  /// thread runs it is kept (and the shortcut closed) until the drainer replaced its routes or
  /// lets go.
  @Test func aRetiredCoreIsKeptOnlyWhileAThreadRunsTheLane() {
    var machine = Machine()
    #expect(machine.retire("idle") == "idle")
    machine.syncShortcut(held: true)
    #expect(machine.retire("s1") == nil)
    #expect(machine.needsAttention)
    #expect(machine.routesReplaced() == ["s1"])
    #expect(machine.routesReplaced().isEmpty)
    #expect(machine.retire("s2") == nil)
    let (_, step) = machine.finishFast(root: 0)
    guard case .stop(scheduleWorker: false, let retired) = step else {
      Issue.record("the shortcut holder did not let go: \(step)")
      return
    }
    #expect(retired == ["s2"])
    #expect(machine.isIdle)
    #expect(!machine.needsAttention)
  }

  /// The root table keeps the root touched last beside its dictionary: every root keeps its
  /// counts and waiter whichever was touched last, and a removed root stays removed.
  @Test func theRootTableKeepsEveryRootWhicheverWasTouchedLast() {
    var table = Machine.RootTable()
    table.open(1, Machine.Root(outstanding: 2, inMain: 1, waiter: .thread))
    table.open(2, Machine.Root(outstanding: 1, inMain: 1, waiter: .resume("task")))
    table[1]?.outstanding -= 1
    table.open(3, Machine.Root(outstanding: 5, inMain: 0, waiter: .drainer))
    table[2] = nil
    table[3]?.inMain += 1
    #expect(table[1]?.outstanding == 1)
    #expect(table[1]?.inMain == 1)
    #expect(table[2] == nil)
    #expect(table[3]?.outstanding == 5)
    #expect(table[3]?.inMain == 1)
    #expect(table.all.keys.sorted() == [1, 3])
    #expect(!table.all.isEmpty)
    table[3] = nil
    #expect(table[3] == nil)
    table[1] = nil
    #expect(table[1] == nil)
    #expect(table.all.isEmpty)
  }
}
