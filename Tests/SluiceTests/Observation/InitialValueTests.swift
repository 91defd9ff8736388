import Dispatch
import Foundation
import Testing

@testable import Sluice

/// S7: a new observer receives the current value at once (Unicore: "observe delivers the current
/// state immediately"); `from: .nextChange` opts out.
@Suite struct InitialValueTests {
  @Test func aWholeStateObserverReceivesTheCurrentStateBeforeObserveReturns() {
    let store = ObsFixtures.store()
    store.dispatch(ObsSetA(value: 3))
    store.dispatch(ObsSetB(value: 4))
    let states = ObsRecorder<ObsState>()
    let subscription = store.observe { state in states.append(state) }
    #expect(states.values == [ObsState(a: 3, b: 4)])

    store.dispatch(ObsSetA(value: 5))
    #expect(states.values == [ObsState(a: 3, b: 4), ObsState(a: 5, b: 4)])
    withExtendedLifetime(subscription) {}
  }

  @Test func aKeyPathObserverReceivesTheCurrentValueAsBothOldAndNew() {
    let store = ObsFixtures.store(ObsState(a: 8))
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a) { change in changes.append(change) }
    #expect(changes.values == [Change(old: 8, new: 8)])

    store.dispatch(ObsSetA(value: 9))
    #expect(changes.values == [Change(old: 8, new: 8), Change(old: 8, new: 9)])
    withExtendedLifetime(subscription) {}
  }

  @Test func aSecondObserverOfAnObservedPathAlsoReceivesTheCurrentValue() {
    let store = ObsFixtures.store()
    let first = store.observe(\.a) { _ in }
    store.dispatch(ObsSetA(value: 4))
    let changes = ObsRecorder<Change<Int>>()
    let second = store.observe(\.a) { change in changes.append(change) }
    #expect(changes.values == [Change(old: 4, new: 4)])
    withExtendedLifetime((first, second)) {}
  }

  @Test func aNonEquatableStateObserverReceivesTheCurrentState() {
    let store = ObsFixtures.plainStore(ObsPlainState(a: 2, b: 1))
    let states = ObsRecorder<Int>()
    let subscription = store.observe { state in states.append(state.a * 10 + state.b) }
    #expect(states.values == [21])
    withExtendedLifetime(subscription) {}
  }

  @Test func nextChangeOptsOutOfTheCurrentValue() {
    let store = ObsFixtures.store(ObsState(a: 1))
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Change<Int>>()
    let whole = store.observe(from: .nextChange) { state in states.append(state.a) }
    let path = store.observe(\.a, from: .nextChange) { change in changes.append(change) }
    #expect(states.values.isEmpty)
    #expect(changes.values.isEmpty)

    store.dispatch(ObsSetA(value: 2))
    #expect(states.values == [2])
    // `old` is the value before the action, though this observer never received it.
    #expect(changes.values == [Change(old: 1, new: 2)])
    withExtendedLifetime((whole, path)) {}
  }

  @Test func queuedObserversReceiveTheCurrentValueFirst() async {
    let queue = DispatchQueue(label: "obs.initial.queue")
    let store = ObsFixtures.store(ObsState(a: 5))
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Change<Int>>()
    let whole = store.observe(on: .queue(queue)) { state in states.append(state.a) }
    let path = store.observe(\.a, on: .queue(queue)) { change in changes.append(change) }
    store.dispatch(ObsSetA(value: 6))

    #expect(await states.waitForCount(2))
    #expect(await changes.waitForCount(2))
    #expect(states.values == [5, 6])
    #expect(changes.values == [Change(old: 5, new: 5), Change(old: 5, new: 6)])
    withExtendedLifetime((whole, path)) {}
  }

  @Test func queuedNextChangeObserversReceiveOnlyChanges() async {
    let queue = DispatchQueue(label: "obs.initial.queue.next")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let whole = store.observe(on: .queue(queue), from: .nextChange) { state in
      states.append(state.a)
    }
    #expect(await obsDrain(queue))
    #expect(states.values.isEmpty)
    store.dispatch(ObsSetA(value: 1))
    #expect(await states.waitForCount(1))
    #expect(await obsDrain(queue))
    #expect(states.values == [1])
    withExtendedLifetime(whole) {}
  }

  @Test func anObserverAddedByAnotherObserverReceivesTheNewStateOnce() {
    let store = ObsFixtures.store()
    let added = ObsRecorder<Int>()
    let addedChanges = ObsRecorder<Change<Int>>()
    let box = ObsBox<[Subscription]>([])
    let adding = store.observe(from: .nextChange) { [weak store] state in
      guard let store, state.a == 5, box.value.isEmpty else { return }
      box.value = [
        store.observe { added.append($0.a) },
        store.observe(\.a) { addedChanges.append($0) },
      ]
    }

    store.dispatch(ObsSetA(value: 5))
    #expect(added.values == [5])
    #expect(addedChanges.values == [Change(old: 5, new: 5)])

    store.dispatch(ObsSetA(value: 6))
    #expect(added.values == [5, 6])
    #expect(addedChanges.values == [Change(old: 5, new: 5), Change(old: 5, new: 6)])
    withExtendedLifetime(adding) {}
  }

  /// Two stores on one lane: the lane reduces the action into both, then notifies the first,
  /// then the second. An observer of the first that starts observing an already-observed path
  /// of the second must receive the second's current value (already reduced), not the value it
  /// had before the action.
  @Test func aKeyPathObserverAddedMidRoundOnAnotherStoreOfTheLaneGetsItsCurrentValue() {
    let dispatcher = Dispatcher(label: "obs.initial.shared-lane")
    let first = ObsFixtures.store(dispatcher: dispatcher)
    let second = ObsFixtures.store(dispatcher: dispatcher)
    let existing = second.observe(\.a) { _ in }
    let late = ObsRecorder<Change<Int>>()
    let lateWhole = ObsRecorder<Int>()
    let box = ObsBox<[Subscription]>([])
    let trigger = first.observe(\.a, from: .nextChange) { [weak second] change in
      guard let second, change.new == 5, box.value.isEmpty else { return }
      box.value = [
        second.observe(\.a) { late.append($0) },
        second.observe { lateWhole.append($0.a) },
      ]
    }

    dispatcher.dispatch(ObsSetA(value: 5))

    #expect(second.state.a == 5)
    #expect(lateWhole.values == [5])
    #expect(late.values == [Change(old: 5, new: 5)])
    #expect(late.values.last?.new == second.state.a)
    withExtendedLifetime((existing, trigger)) {}
  }
}
