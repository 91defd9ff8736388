import Testing

@testable import Sluice

/// Each transition of the lane's state machine, on its own. Payloads and resumers are names;
/// locks are numbers.
@Suite struct LaneStateMachineTests {
  typealias Machine = LaneStateMachine<String, String, Int>

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
    guard case .stop(let worker) = step else { return (ran, wake, false) }
    return (ran, wake, worker)
  }

  /// Pops the next item (the caller is the drainer).
  func nextItem(_ machine: inout Machine) -> Machine.Item? {
    guard case .run(let item) = machine.next().1 else { return nil }
    return item
  }

  @Test func anAsynchronousItemOnAnIdleLaneStartsTheWorker() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .none)
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
      let action = machine.submit("a", bypass: false, completion: .block)
      #expect(action == .drain)
    }
    #expect(machine.drainer == .caller(1))
    let drained = drainAll(&machine)
    #expect(drained.ran == ["a"])
    #expect(machine.roots.isEmpty)
    #expect(machine.isIdle)
  }

  @Test func aSynchronousCallerOnABusyLaneWaitsAndIsWokenWhenItsItemRan() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .none)
      #expect(action == .scheduleWorker)
    }
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block)
      #expect(action == .wait(2))
    }
    let drained = drainAll(&machine)
    #expect(drained.ran == ["a", "b"])
    #expect(drained.wake.threads == [2])
    do {
      let outcome = machine.takeOutcome(2)
      #expect(outcome == .finished)
    }
    do {
      let outcome = machine.takeOutcome(2)
      #expect(outcome == nil)
    }
  }

  @Test func aCallerTakesTheLaneFromAWorkerThatHasNotStarted() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none)
    do {
      let action = machine.submit("b", bypass: false, completion: .block)
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
    _ = machine.submit("a", bypass: false, completion: .none)
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .noBlock)
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
      let action = machine.submit("a", bypass: false, completion: .block)
      #expect(action == .none)
    }
    #expect(machine.queueDepth == 1)
    #expect(!machine.hasRunnable)
  }

  @Test func aPauseReleasesABlockedCallerWhoseChainCanNoLongerRun() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none)
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block)
      #expect(action == .wait(2))
    }
    let wake = machine.pause(1)
    #expect(wake.threads == [2])
    do {
      let outcome = machine.takeOutcome(2)
      #expect(outcome == .finished)
    }
    // The worker finds nothing it may run.
    #expect(drainAll(&machine).ran == [])
  }

  @Test func aBypassItemRunsWhileALockHoldsTheLane() {
    var machine = Machine()
    _ = machine.pause(1)
    _ = machine.submit("held", bypass: false, completion: .block)
    do {
      let action = machine.submit("exclusive", bypass: true, completion: .block)
      #expect(action == .drain)
    }
    #expect(drainAll(&machine).ran == ["exclusive"])
    #expect(machine.queueDepth == 1)
  }

  @Test func releasingTheLastLockReplaysTheHeldItemsBehindABarrier() {
    var machine = Machine()
    _ = machine.pause(1)
    _ = machine.pause(2)
    _ = machine.submit("a", bypass: false, completion: .none)
    _ = machine.submit("b", bypass: false, completion: .none)
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
      _ = machine.submit("running", bypass: false, completion: .none)
      do {
        let started = machine.startWorker()
        #expect(started)
      }
      _ = machine.pause(1)
      _ = machine.submit("held", bypass: false, completion: .none)
      _ = machine.submit("held too", bypass: false, completion: .none)
      do {
        let action = machine.release(1, caller: caller, barrier: "barrier")
        #expect(action == expected)
      }
      #expect(drainAll(&machine).ran.prefix(3) == ["running", "held", "held too"])
    }
  }

  @Test func anItemDispatchedFromInsideJoinsTheRunningItemsChain() {
    var machine = Machine()
    _ = machine.submit("a", bypass: false, completion: .none)
    do {
      let started = machine.startWorker()
      #expect(started)
    }
    do {
      let action = machine.submit("b", bypass: false, completion: .block)
      #expect(action == .wait(2))
    }
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
    machine.submitInside("b.1", bypass: false, current: b.root)
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
    machine.submitInside("follow-up", bypass: false, current: root)
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
    #expect(machine.submit("mine", bypass: false, completion: .block) == .drain)
    // Queued while the caller drains: a blocked caller, then an asynchronous item.
    #expect(machine.submit("theirs", bypass: false, completion: .block) == .wait(2))
    #expect(machine.submit("async", bypass: false, completion: .none) == .none)
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
    #expect(machine.submit("later", bypass: false, completion: .block) == .wait(4))
    let (wake, step) = machine.next()
    guard case .stop(scheduleWorker: false) = step else {
      Issue.record("no hand-over")
      return
    }
    #expect(wake.threads == [4])
    #expect(machine.takeOutcome(4) == .drain)
    #expect(machine.drainer == .caller(4))
    #expect(drainAll(&machine).ran == ["later"])
  }

  @Test func aCallerHandsAsynchronousWorkBeyondItsBudgetToTheWorker() {
    var machine = Machine()
    #expect(machine.submit("mine", bypass: false, completion: .block) == .drain)
    let flood = (0...Machine.extraBudget).map { "async \($0)" }
    for name in flood {
      #expect(machine.submit(name, bypass: false, completion: .none) == .none)
    }
    var ran: [String] = []
    var step = machine.next().1
    while case .run(let item) = step {
      ran.append(item.payload)
      _ = machine.finish(item)
      step = machine.next().1
    }
    #expect(ran == ["mine"] + flood.dropLast())
    guard case .stop(scheduleWorker: true) = step else {
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
      let action = machine.submit("sent", bypass: false, completion: .resume("task"))
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
    do {
      let hasRoom = machine.waitForCapacity("first")
      #expect(hasRoom)
    }
    _ = machine.pause(1)
    _ = machine.submit("a", bypass: false, completion: .none)
    #expect(!machine.hasRoom)
    do {
      let hasRoom = machine.waitForCapacity("second")
      #expect(!hasRoom)
    }
    do {
      let action = machine.release(1, caller: .block, barrier: "barrier")
      #expect(action == .drain)
    }
    #expect(drainAll(&machine).wake.resumers == ["second"])
  }

  @Test func finishingMayWakeOrStopOnlyAtTheEndOfAChainOrOfTheDrain() {
    var machine = Machine()
    do {
      let action = machine.submit("a", bypass: false, completion: .block)
      #expect(action == .drain)
    }
    _ = machine.submit("b", bypass: false, completion: .none)
    guard let a = nextItem(&machine) else {
      Issue.record("a did not run")
      return
    }
    machine.submitInside("a.1", bypass: false, current: a.root)
    // "a" is not the last of its chain, and "a.1" and "b" can still run.
    #expect(!machine.mayWakeOrStop(finishing: a.root))
    _ = machine.finish(a)
    #expect(machine.mayWakeOrStop(finishing: a.root))
  }
}
