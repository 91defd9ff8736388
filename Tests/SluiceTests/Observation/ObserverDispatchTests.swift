import Dispatch
import Foundation
import Testing

@testable import Sluice

/// Behaviours the RxStateFlow and Unicore READMEs promise: an observer may dispatch, and
/// dispatches from background threads are observed.
@Suite struct ObserverDispatchTests {
  @Test func anObserverThatDispatchesSeesTheInitialThenTheNextStateInOrder() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe { [weak store] state in
      states.append(state.a)
      if state.a == 0 { store?.dispatch(ObsIncrementA()) }
    }
    // The dispatch made by the observer's first call ran before `observe` returned.
    #expect(states.values == [0, 1])
    #expect(store.state.a == 1)
    withExtendedLifetime(subscription) {}
  }

  @Test func aKeyPathObserverThatDispatchesSeesEachChangeInOrder() {
    let store = ObsFixtures.store()
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a) { [weak store] change in
      changes.append(change)
      if change.new < 3 { store?.dispatch(ObsIncrementA()) }
    }
    #expect(
      changes.values == [
        Change(old: 0, new: 0), Change(old: 0, new: 1), Change(old: 1, new: 2),
        Change(old: 2, new: 3),
      ])
    #expect(store.state.a == 3)
    withExtendedLifetime(subscription) {}
  }

  @Test func aDispatchFromABackgroundThreadIsObserved() async {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe { state in states.append(state.a) }
    let ran = await obsOnBackgroundThread { store.dispatch(ObsSetA(value: 42)) }
    #expect(ran)
    #expect(await states.waitForCount(2))
    #expect(states.values == [0, 42])
    withExtendedLifetime(subscription) {}
  }

  @Test func anAsyncDispatchFromABackgroundThreadIsObserved() async {
    let store = ObsFixtures.store()
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a, from: .nextChange) { change in changes.append(change) }
    let ran = await obsOnBackgroundThread { store.dispatch(ObsSetA(value: 7), mode: .async) }
    #expect(ran)
    #expect(await changes.waitForCount(1))
    #expect(changes.values == [Change(old: 0, new: 7)])
    withExtendedLifetime(subscription) {}
  }

  @Test func aDispatchFromAGlobalQueueIsObservedOnAChosenQueue() async {
    let delivery = DispatchQueue(label: "obs.dispatch.background.delivery")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe(on: .queue(delivery), from: .nextChange) { state in
      states.append(state.a)
    }
    DispatchQueue.global().async { store.dispatch(ObsSetA(value: 3)) }
    #expect(await states.waitForCount(1))
    #expect(states.values == [3])
    withExtendedLifetime(subscription) {}
  }

  @Test func sendResumesAfterSynchronousObserversRan() async {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe(from: .nextChange) { state in states.append(state.a) }
    await store.send(ObsSetA(value: 1))
    #expect(states.values == [1])
    await store.send(ObsSetA(value: 2))
    #expect(states.values == [1, 2])
    withExtendedLifetime(subscription) {}
  }

  @Test func aSynchronousDispatchReturnsAfterSynchronousObserversRan() async {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let subscription = store.observe(from: .nextChange) { state in states.append(state.a) }
    let sawOwnChange = ObsBox<Bool>(false)
    let ran = await obsOnBackgroundThread {
      store.dispatch(ObsSetA(value: 9))
      sawOwnChange.value = states.values.contains(9)
    }
    #expect(ran)
    #expect(sawOwnChange.value)
    withExtendedLifetime(subscription) {}
  }
}
