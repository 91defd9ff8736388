import Dispatch
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// S6: after `cancel()` returns, the observer is not called again — whatever the delivery, from
/// whichever thread, including from inside the observer.
@Suite struct CancellationTests {
  @Test(arguments: ObsDeliveryKind.allCases)
  func aCancelledObserverIsNeverCalledAgain(kind: ObsDeliveryKind) async {
    let (delivery, queue) = kind.make()
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Int>()
    let whole = store.observe(on: delivery) { state in states.append(state.a) }
    let path = store.observe(\.a, on: delivery) { change in changes.append(change.new) }
    store.dispatch(ObsSetA(value: 1))
    #expect(await states.waitForCount(2))
    #expect(await changes.waitForCount(2))

    whole.cancel()
    path.cancel()
    #expect(whole.isCancelled)
    #expect(path.isCancelled)
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsSetA(value: 3))
    if let queue { #expect(await obsDrain(queue)) }

    #expect(states.values == [0, 1])
    #expect(changes.values == [0, 1])
    #expect(store.observerCount == 0)
  }

  @Test func cancelIsIdempotent() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe { state in states.append(state.a) }
    subscription.cancel()
    subscription.cancel()
    store.dispatch(ObsSetA(value: 1))
    subscription.cancel()
    #expect(subscription.isCancelled)
    #expect(states.values == [0])
    #expect(store.observerCount == 0)
  }

  @Test func cancelFromInsideTheObserverStopsItAtOnceWithoutStoppingOthers() {
    let store = ObsFixtures.store()
    let cancelling = ObsRecorder<Int>()
    let others = ObsRecorder<Int>()
    let box = ObsBox<Subscription?>(nil)
    box.value = store.observe { state in
      cancelling.append(state.a)
      if state.a == 2 { box.value?.cancel() }
    }
    let other = store.observe { state in others.append(state.a) }

    for value in 1...4 { store.dispatch(ObsSetA(value: value)) }

    #expect(cancelling.values == [0, 1, 2])
    #expect(others.values == [0, 1, 2, 3, 4])
    #expect(box.value?.isCancelled == true)
    #expect(store.observerCount == 1)
    withExtendedLifetime(other) {}
  }

  @Test func aKeyPathObserverCancellingItselfIsNotCalledAgain() {
    let store = ObsFixtures.store()
    let changes = ObsRecorder<Change<Int>>()
    let box = ObsBox<Subscription?>(nil)
    box.value = store.observe(\.a, from: .nextChange) { change in
      changes.append(change)
      box.value?.cancel()
    }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values == [Change(old: 0, new: 1)])
    #expect(store.observerCount == 0)
  }

  @Test func cancellingAnotherObserverFromInsideAnObserverSkipsItInTheSameRound() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    let victim = ObsBox<Subscription?>(nil)
    let killer = store.observe(from: .nextChange) { state in
      log.append("killer:\(state.a)")
      if state.a == 1 { victim.value?.cancel() }
    }
    victim.value = store.observe(from: .nextChange) { state in log.append("victim:\(state.a)") }

    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    #expect(log.values == ["killer:1", "killer:2"])
    withExtendedLifetime(killer) {}
  }

  @Test func cancelFromInsideAQueuedObserverSkipsTheRestOfItsBatch() async {
    let queue = DispatchQueue(label: "obs.cancel.inside.queued")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let box = ObsBox<Subscription?>(nil)
    queue.suspend()
    box.value = store.observe(on: .queue(queue)) { state in
      states.append(state.a)
      if state.a == 2 { box.value?.cancel() }
    }
    for value in 1...5 { store.dispatch(ObsSetA(value: value)) }
    queue.resume()
    #expect(await states.waitForCount(3))
    store.dispatch(ObsSetA(value: 6))
    #expect(await obsDrain(queue))

    #expect(states.values == [0, 1, 2])
    #expect(store.observerCount == 0)
  }

  @Test func cancelWithDeliveriesStillQueuedDropsThem() async {
    let queue = DispatchQueue(label: "obs.cancel.pending")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Change<Int>>()
    queue.suspend()
    let whole = store.observe(on: .queue(queue)) { state in states.append(state.a) }
    let path = store.observe(\.a, on: .queue(queue)) { change in changes.append(change) }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    whole.cancel()
    path.cancel()
    queue.resume()
    #expect(await obsDrain(queue))

    #expect(states.values.isEmpty)
    #expect(changes.values.isEmpty)
  }

  @Test(arguments: ObsDeliveryKind.allCases)
  func cancelFromAnotherThreadWhileDispatchesContinueIsFinal(kind: ObsDeliveryKind) async {
    let (delivery, queue) = kind.make()
    let store = ObsFixtures.store()
    let cancelReturned = ObsFlag()
    let calls = ObsRecorder<Int>()
    let lateCalls = ObsRecorder<Int>()
    let progress = ObsRecorder<Int>()
    let probe = ObsOverlapProbe()
    let subscription = store.observe(on: delivery) { state in
      probe.call {
        if cancelReturned.isSet { lateCalls.append(state.a) }
        calls.append(state.a)
      }
    }
    let tracker = store.observe(from: .nextChange) { state in progress.append(state.a) }

    let stop = ObsFlag()
    let workers = ObsThreads(3) { _ in
      // Yielding after each dispatch, so three busy threads leave the other tests CPU time.
      while !stop.isSet {
        store.dispatch(ObsIncrementA())
        sched_yield()
      }
    }
    #expect(await calls.waitForCount(100))

    let canceller = ObsThreads(1) { _ in
      subscription.cancel()
      cancelReturned.set()
    }
    #expect(await canceller.join())
    // Let many more actions go through after the cancellation.
    #expect(await progress.waitForCount(progress.count + 1_000))
    stop.set()
    #expect(await workers.join())
    if let queue { #expect(await obsDrain(queue)) }

    #expect(lateCalls.values.isEmpty)
    #expect(probe.overlapCount == 0)
    // Whatever was delivered before the cancellation was delivered in lane order.
    let delivered = calls.values
    #expect(delivered == Array(0..<delivered.count))
    #expect(store.observerCount == 1)
    withExtendedLifetime(tracker) {}
  }

  @Test func cancelFromAnotherThreadWaitsForARunningCallToFinish() async {
    let queue = DispatchQueue(label: "obs.cancel.waits")
    let store = ObsFixtures.store()
    let entered = ObsEvent()
    let mayFinish = ObsEvent()
    let finished = ObsFlag()
    let subscription = store.observe(on: .queue(queue), from: .nextChange) { _ in
      entered.signal()
      _ = mayFinish.waitBlocking()
      finished.set()
    }
    store.dispatch(ObsSetA(value: 1))
    #expect(await entered.wait())

    let sawFinishedOnReturn = ObsBox<Bool?>(nil)
    let canceller = ObsThreads(1) { _ in
      subscription.cancel()
      sawFinishedOnReturn.value = finished.isSet
    }
    // `cancel()` cannot return while the call runs; let the call finish, then check that
    // `cancel()` returned only after it did.
    mayFinish.signal()
    #expect(await canceller.join())
    #expect(sawFinishedOnReturn.value == true)
  }

  /// A synchronous observer (running on the lane) cancels a queued observer that is running on
  /// its queue at that moment and is itself dispatching synchronously to the same store.
  /// `cancel()` waits for the running call; the call waits for the lane, which the cancelling
  /// thread holds. Dispatch must never deadlock (S2).
  @Test func cancellingARunningQueuedObserverFromTheLaneDoesNotDeadlock() async {
    let queue = DispatchQueue(label: "obs.cancel.deadlock")
    let store = ObsFixtures.store()
    let queuedEntered = ObsEvent()
    let laneHeld = ObsEvent()
    let queuedDispatched = ObsEvent()
    let queued = store.observe(on: .queue(queue), from: .nextChange) { [weak store] state in
      guard state.a == 1 else { return }
      queuedEntered.signal()
      _ = laneHeld.waitBlocking()
      store?.dispatch(ObsSetB(value: 1))
      queuedDispatched.signal()
    }
    let queuedBox = ObsBox<Subscription?>(queued)
    let onLane = store.observe(from: .nextChange) { state in
      guard state.a == 1 else { return }
      _ = queuedEntered.waitBlocking()
      laneHeld.signal()
      queuedBox.value?.cancel()
    }

    let dispatched = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      store.dispatch(ObsSetA(value: 1))
    }
    #expect(
      dispatched,
      "the dispatch deadlocked: cancel() on the lane waits for a queued call that waits for the lane"
    )
    guard dispatched else {
      // The deadlocked threads stay stuck. Deinitializing these subscriptions would cancel
      // observers that are still running on them, and block this test forever: leak them.
      _ = Unmanaged.passRetained(queued)
      _ = Unmanaged.passRetained(onLane)
      return
    }
    #expect(await queuedDispatched.wait())
    #expect(store.state == ObsState(a: 1, b: 1))
    withExtendedLifetime((queued, onLane)) {}
  }
}
