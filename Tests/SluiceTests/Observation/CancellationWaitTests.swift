import Dispatch
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// S6 with a bound: `cancel()` waits for a call of the observer running on another thread, but
/// never longer than `Subscription.maximumCancelWait`; a call that outlives it is reported, and
/// the observer is still never called again.
///
/// Every observer here runs on a dedicated thread (the one that dispatches), and every cancel
/// runs on another dedicated thread: a hang fails the test at its deadline instead of hanging
/// the run.
@Suite struct CancellationWaitTests {
  @Test func cancelReturnsWithinItsBoundAndReportsAnObserverThatKeepsRunning() async {
    let issues = TxIssues()
    let store = ObsFixtures.store(dispatcher: Dispatcher(reporter: issues.reporter))
    let entered = ObsEvent()
    let released = ObsEvent()
    let calls = ObsRecorder<Int>()
    let subscription = store.observe(from: .nextChange) { state in
      calls.append(state.a)
      entered.signal()
      // Blocked until the test releases it, which it does only after `cancel()` returned.
      _ = released.waitBlocking()
    }
    let dispatched = ObsEvent()
    Thread {
      store.dispatch(ObsSetA(value: 1))
      dispatched.signal()
    }.start()
    #expect(await entered.wait())

    let cancelled = ObsEvent()
    let waited = ObsBox<Duration?>(nil)
    Thread {
      let clock = ContinuousClock()
      let start = clock.now
      subscription.cancel()
      waited.value = clock.now - start
      cancelled.signal()
    }.start()
    let returnedInTime = await cancelled.wait(timeout: hangGuardSeconds)
    released.signal()

    #expect(returnedInTime)
    if let waited = waited.value {
      #expect(waited >= Subscription.maximumCancelWait)
    }
    #expect(issues.kinds == [.cancelWaitedTooLong])
    #expect(await dispatched.wait())
    store.dispatch(ObsSetA(value: 2))
    #expect(calls.values == [1])
  }

  @Test func cancelWaitsForACallRunningBrieflyOnAnotherThreadToFinish() async {
    let issues = TxIssues()
    let store = ObsFixtures.store(dispatcher: Dispatcher(reporter: issues.reporter))
    let entered = ObsEvent()
    let cancelling = ObsEvent()
    let finished = ObsFlag()
    let calls = ObsRecorder<Int>()
    let subscription = store.observe(from: .nextChange) { state in
      calls.append(state.a)
      entered.signal()
      _ = cancelling.waitBlocking()
      finished.set()
    }
    let dispatched = ObsEvent()
    Thread {
      store.dispatch(ObsSetA(value: 1))
      dispatched.signal()
    }.start()
    #expect(await entered.wait())

    let finishedWhenCancelReturned = ObsBox<Bool?>(nil)
    #expect(
      await obsOnBackgroundThread {
        cancelling.signal()
        subscription.cancel()
        finishedWhenCancelReturned.value = finished.isSet
      })

    #expect(finishedWhenCancelReturned.value == true)
    #expect(issues.all.isEmpty)
    #expect(await dispatched.wait())
    store.dispatch(ObsSetA(value: 2))
    #expect(calls.values == [1])
  }

  @Test func cancelFromAThreadDeliveringObservationsDoesNotWait() async {
    let issues = TxIssues()
    let store = ObsFixtures.store(dispatcher: Dispatcher(reporter: issues.reporter))
    let entered = ObsEvent()
    let released = ObsEvent()
    let blocked = store.observe(from: .nextChange) { _ in
      entered.signal()
      _ = released.waitBlocking()
    }
    Thread { store.dispatch(ObsSetA(value: 1)) }.start()
    #expect(await entered.wait())

    // A queued observer of another store cancels the blocked one: it must not wait for it.
    let queue = DispatchQueue(label: "cancellation-wait.delivery")
    let other = ObsFixtures.store()
    let returned = ObsEvent()
    let cancelling = other.observe(on: .queue(queue), from: .nextChange) { _ in
      blocked.cancel()
      returned.signal()
    }
    other.dispatch(ObsSetA(value: 1))
    let returnedAtOnce = await returned.wait(timeout: hangGuardSeconds)
    released.signal()

    #expect(returnedAtOnce)
    #expect(issues.all.isEmpty)
    #expect(await obsDrain(queue))
    withExtendedLifetime(cancelling) {}
  }
}
