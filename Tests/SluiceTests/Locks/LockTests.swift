import Clocks
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// S12: `pause()` holds the lane; queued work replays FIFO after the last release; a lock is
/// released by `release()`, by its deinit, by `removeAllLocks()` or by its timeout — a forgotten
/// lock never stalls a lane silently (Flask's FluxLock, without its pitfalls).
@Suite struct LockTests {
  // MARK: - Pause and release

  @Test func actionsDispatchedWhilePausedQueueAndReplayInOrderAfterTheLastRelease() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let first = dispatcher.pause("first")
    let second = dispatcher.pause("second")
    #expect(dispatcher.isPaused)
    #expect(dispatcher.lockCount == 2)
    for id in 1...3 { store.dispatch(TxAdd(id: id)) }
    store.dispatch(TxAdd(id: 4), mode: .async)
    #expect(store.state.ids.isEmpty)
    #expect(dispatcher.queueDepth == 4)
    first.release()
    #expect(dispatcher.isPaused)
    #expect(store.state.ids.isEmpty)
    second.release()
    #expect(!dispatcher.isPaused)
    #expect(dispatcher.lockCount == 0)
    #expect(store.state.ids == [1, 2, 3, 4])
  }

  @Test func releaseReturnsAfterTheReplayEvenWhileAnotherThreadHoldsTheLane() async {
    // Another thread is finishing a step (its observer is blocked) when the lock is released:
    // the held actions replay there, and `release()` waits for them instead of returning
    // before they ran (found by the sluice-demo tour, where a persistence save held the lane).
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    let subscription = store.observe(from: .nextChange) { state in
      guard state.ids == [0] else { return }
      entered.signal()
      _ = proceed.wait(timeout: hangGuardDeadline())
    }
    Thread { store.dispatch(TxAdd(id: 0)) }.start()
    #expect(await wait(for: entered))
    let lock = dispatcher.pause()
    for id in 1...3 { store.dispatch(TxAdd(id: id)) }
    // Lets the blocked step finish a little after `release()` started waiting. Were it to
    // finish first, the replay would run here and the test would pass without checking
    // anything, never fail wrongly.
    Thread {
      Thread.sleep(forTimeInterval: 0.05)
      proceed.signal()
    }.start()
    let ids = await offPool {
      lock.release()
      return store.state.ids
    }
    #expect(ids == [0, 1, 2, 3])
    subscription.cancel()
  }

  @Test func releaseIsIdempotentAndOnReleaseRunsExactlyOnce() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let other = dispatcher.pause("other")
    let lock = dispatcher.pause("lock")
    let calls = TxCount()
    lock.onRelease { calls.increment() }
    store.dispatch(TxAdd(id: 1))
    lock.release()
    lock.release()
    #expect(lock.isReleased)
    #expect(calls.value == 1)
    // A second release must not take away the other lock's hold.
    #expect(dispatcher.isPaused)
    #expect(dispatcher.lockCount == 1)
    #expect(store.state.ids.isEmpty)
    // Registered after the release: runs at once.
    lock.onRelease { calls.increment() }
    #expect(calls.value == 2)
    other.release()
    #expect(store.state.ids == [1])
  }

  @Test func aLockReleasedByItsDeinitResumesTheLane() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let released = TxCount()
    var lock: Lock? = dispatcher.pause("forgotten")
    lock?.onRelease { released.increment() }
    store.dispatch(TxAdd(id: 1))
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids.isEmpty)
    #expect(dispatcher.isPaused)
    lock = nil
    #expect(released.value == 1)
    #expect(!dispatcher.isPaused)
    #expect(store.state.ids == [1, 2])
  }

  @Test func removeAllLocksReleasesEveryLockAndCallsEachOnRelease() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let released = Recorder<String>()
    let locks = [
      dispatcher.pause("one"),
      dispatcher.pause("two"),
      dispatcher.exclusive(TxAdd(id: 1)),  // changed the store: stays held
    ]
    for lock in locks { lock.onRelease { released.append(lock.label) } }
    #expect(dispatcher.lockCount == 3)
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids == [1])
    dispatcher.removeAllLocks()
    #expect(locks.allSatisfy { $0.isReleased })
    #expect(released.values.sorted() == ["exclusive TxAdd", "one", "two"])
    #expect(dispatcher.lockCount == 0)
    #expect(store.state.ids == [1, 2])
    dispatcher.removeAllLocks()
    #expect(released.count == 3)
  }

  @Test func aLockPastItsTimeoutIsReleasedAndReportsLockTimedOut() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.log(dispatcher)
    let released = TxEvent()
    let clock = TestClock()
    let lock = dispatcher.pause("slow save", timeout: .milliseconds(50), clock: clock)
    lock.onRelease { released.signal() }
    store.dispatch(TxAdd(id: 1))
    await clock.advance(by: .milliseconds(49))
    #expect(!lock.isReleased, "released before its timeout")
    #expect(store.state.ids.isEmpty)
    await clock.advance(by: .milliseconds(1))
    #expect(await released.wait(), "the timeout did not release the lock")
    #expect(await issues.wait(for: .lockTimedOut), "no lockTimedOut issue")
    #expect(lock.isReleased)
    #expect(!dispatcher.isPaused)
    #expect(store.state.ids == [1])
    #expect(issues.kinds == [.lockTimedOut])
    #expect(issues.all.first?.message.contains("slow save") == true)
    withExtendedLifetime(lock) {}
  }

  @Test func aLockReleasedBeforeItsTimeoutReportsNothing() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let clock = TestClock()
    let early = dispatcher.pause("early", timeout: .milliseconds(20), clock: clock)
    early.release()
    // A second lock whose (later) timeout is the event to wait for: the clock passes the first
    // deadline on its way, and the release cancelled the first wait.
    let late = dispatcher.pause("late", timeout: .milliseconds(300), clock: clock)
    await clock.advance(by: .milliseconds(300))
    #expect(await issues.wait(for: .lockTimedOut))
    #expect(issues.all.count == 1)
    #expect(issues.all.first?.message.contains("late") == true)
    withExtendedLifetime((early, late)) {}
  }

  @Test func sendWhilePausedResumesOnlyAfterTheRelease() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause()
    let task = Task { await store.send(TxAdd(id: 1)) }
    #expect(await txEventually { dispatcher.queueDepth == 1 })
    #expect(store.state.ids.isEmpty)
    lock.release()
    await task.value
    #expect(store.state.ids == [1])
  }

  @Test func resetQueuesBehindALockLikeAnAction() {
    let store = TxFixtures.log()
    store.dispatch(TxAdd(id: 1))
    let lock = store.dispatcher.pause()
    store.reset()
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids == [1])
    lock.release()
    #expect(store.state.ids == [2])
  }

  @Test func laneQueriesAndRegistrationsAreNotHeldByALock() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    let heard = Recorder<[Int]>()
    let subscriptions = Recorder<Subscription>()
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      subscriptions.append(store.observe(\.ids) { heard.append($0.new) })
      subscriptions.append(store.react { reaction in reaction.on(\.total) { _ in } })
      _ = store.observerCount
    }
    #expect(finished, "a query waited for the lock")
    #expect(heard.values == [[]])
    #expect(store.observerCount == 2)
    lock.release()
    #expect(heard.values == [[], [1]])
    withExtendedLifetime(subscriptions) {}
  }

  // MARK: - Exclusive actions

  @Test func anExclusiveActionRunsNowAndHandsItsLockToObserversAndReactions() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let locks = Recorder<Lock?>()
    let subscriptions = [
      store.observe(\.ids, from: .nextChange) { _ in locks.append(dispatcher.currentLock) },
      store.react { reaction in reaction.on(\.total) { _ in locks.append(reaction.lock) } },
    ]
    let lock = dispatcher.exclusive(TxAdd(id: 1))
    #expect(store.state.ids == [1])
    #expect(!lock.isReleased)
    #expect(dispatcher.isPaused)
    #expect(locks.values.count == 2)
    #expect(locks.values.allSatisfy { $0 === lock })
    #expect(dispatcher.currentLock == nil)
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids == [1])
    // An ordinary action's observers and reactions get no lock.
    lock.release()
    #expect(store.state.ids == [1, 2])
    #expect(locks.values.count == 4)
    #expect(locks.values.suffix(2).allSatisfy { $0 == nil })
    withExtendedLifetime(subscriptions) {}
  }

  @Test func exclusiveActionsAskedForWhilePausedRunAtOnceInTheOrderAsked() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let pause = dispatcher.pause()
    store.dispatch(TxAdd(id: 0))
    let exclusives = (1...3).map { dispatcher.exclusive(TxAdd(id: $0)) }
    #expect(store.state.ids == [1, 2, 3])
    #expect(dispatcher.lockCount == 4)
    pause.release()
    exclusives[0].release()
    exclusives[1].release()
    #expect(store.state.ids == [1, 2, 3])
    exclusives[2].release()
    #expect(store.state.ids == [1, 2, 3, 0])
  }

  @Test func anExclusiveActionAskedForFromAnotherThreadRunsWhileTheLaneIsPaused() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let pause = dispatcher.pause()
    store.dispatch(TxAdd(id: 0))
    let locks = Recorder<Lock>()
    let finished = await runOnThreads(2, timeout: hangGuardSeconds) { thread in
      locks.append(dispatcher.exclusive(TxAdd(id: 10 + thread)))
    }
    #expect(finished, "an exclusive action waited for the pause")
    #expect(store.state.ids.sorted() == [10, 11])
    pause.release()
    for lock in locks.values { lock.release() }
    #expect(store.state.ids.last == 0)
  }

  @Test func anExclusiveActionAskedForFromInsideTheLaneRunsBeforeWhatIsQueued() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let locks = Recorder<Lock>()
    let subscription = store.observe(\.ids, from: .nextChange) { change in
      guard change.new == [1] else { return }
      store.dispatch(TxAdd(id: 50))
      locks.append(dispatcher.exclusive(TxAdd(id: 100)))
    }
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids == [1, 100])
    #expect(locks.count == 1)
    locks.values.first?.release()
    #expect(store.state.ids == [1, 100, 50])
    subscription.cancel()
  }

  @Test func anExclusiveActionThatChangesNothingReleasesItsLock() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let handledNoop = dispatcher.exclusive(TxNothing())
    let unhandled = dispatcher.exclusive(TxUnhandled())
    #expect(handledNoop.isReleased)
    #expect(unhandled.isReleased)
    #expect(!dispatcher.isPaused)
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids == [1])
  }

  @Test func anExclusiveActionDroppedByMiddlewareCannotStallTheLane() {
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: TxLog(), dispatcher: dispatcher, reducer: TxFixtures.logReducer,
      middleware: [.intercept { action, _ in (action as? TxAdd)?.id == 13 ? .drop : .proceed }])
    let lock = dispatcher.exclusive(TxAdd(id: 13))
    #expect(store.state.ids.isEmpty)
    #expect(lock.isReleased)
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids == [1])
  }

  @Test func anExclusiveActionDroppedByMiddlewareReleasesItsLockForANonEquatableState() {
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: TxPlainLog(), dispatcher: dispatcher, reducer: TxFixtures.plainReducer,
      middleware: [.intercept { action, _ in (action as? TxAdd)?.id == 13 ? .drop : .proceed }])
    let lock = dispatcher.exclusive(TxAdd(id: 13))
    #expect(store.state.ids.isEmpty)
    #expect(lock.isReleased, "a dropped exclusive action left the lane paused")
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids == [1])
    lock.release()
  }

  @Test func anUnhandledExclusiveActionReleasesItsLockEvenWhenAStoreTapsEveryAction() {
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: TxPlainLog(), dispatcher: dispatcher, reducer: TxFixtures.plainReducer)
    let tap = store.onAction { _, _ in }
    let lock = dispatcher.exclusive(TxUnhandled())
    #expect(lock.isReleased, "an unhandled exclusive action left the lane paused")
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids == [1])
    lock.release()
    tap.cancel()
  }

  @Test func anExclusiveActionWithoutAutoreleaseKeepsTheLaneUntilReleased() {
    let store = TxFixtures.log()
    let lock = store.dispatcher.exclusive(TxNothing(), autorelease: false)
    #expect(!lock.isReleased)
    store.dispatch(TxAdd(id: 1))
    #expect(store.state.ids.isEmpty)
    lock.release()
    #expect(store.state.ids == [1])
  }

  @Test func anExclusiveLockPastItsTimeoutIsReleasedAndReported() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.log(dispatcher)
    let released = TxEvent()
    let clock = TestClock()
    let lock = dispatcher.exclusive(TxAdd(id: 1), timeout: .milliseconds(50), clock: clock)
    lock.onRelease { released.signal() }
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids == [1])
    await clock.advance(by: .milliseconds(50))
    #expect(await released.wait())
    #expect(await issues.wait(for: .lockTimedOut))
    #expect(store.state.ids == [1, 2])
    withExtendedLifetime(lock) {}
  }

  @Test func theWaitOfATimeoutKeepsNoLockAlive() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let clock = TestClock()
    weak var weakLock: Lock?
    do {
      let lock = dispatcher.pause(timeout: .seconds(60), clock: clock)
      weakLock = lock
      store.dispatch(TxAdd(id: 1))
      #expect(store.state.ids.isEmpty)
    }
    // Nobody holds the lock: it went, and released the lane, though its timeout is pending.
    #expect(weakLock == nil)
    #expect(!dispatcher.isPaused)
    #expect(store.state.ids == [1])
  }

  @Test func aDiscardedExclusiveLockIsReleasedOnceNobodyHoldsIt() {
    let store = TxFixtures.log()
    store.dispatcher.exclusive(TxAdd(id: 1))
    store.dispatch(TxAdd(id: 2))
    #expect(store.state.ids == [1, 2])
    #expect(!store.dispatcher.isPaused)
  }
}
