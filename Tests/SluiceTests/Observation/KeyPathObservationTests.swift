import Testing

@testable import Sluice

/// S8: key-path observers fire only when their value changed, with `Change(old, new)` where `old`
/// is the value before the action; whole-state observers of an `Equatable` state fire only on
/// real changes, those of other states on every handled action.
@Suite struct KeyPathObservationTests {
  @Test func aKeyPathObserverFiresOnlyWhenItsValueChanged() {
    let store = ObsFixtures.store()
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a) { change in changes.append(change) }

    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetB(value: 9))
    store.dispatch(ObsNoChange())
    store.dispatch(ObsUnhandled())
    store.dispatch(ObsSetA(value: 3))
    store.dispatch(ObsSetAB(a: 3, b: 10))
    store.dispatch(ObsSetAB(a: 4, b: 10))

    #expect(
      changes.values == [
        Change(old: 0, new: 0), Change(old: 0, new: 1), Change(old: 1, new: 3),
        Change(old: 3, new: 4),
      ])
    withExtendedLifetime(subscription) {}
  }

  @Test func oldIsTheValueBeforeTheActionEvenForAnObserverAddedLater() {
    let store = ObsFixtures.store()
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a, from: .nextChange) { change in changes.append(change) }
    store.dispatch(ObsSetB(value: 1))
    store.dispatch(ObsSetA(value: 7))
    #expect(changes.values == [Change(old: 2, new: 7)])
    withExtendedLifetime(subscription) {}
  }

  @Test func observersOfOtherPathsAreNotCalled() {
    let store = ObsFixtures.store()
    let bChanges = ObsRecorder<Change<Int>>()
    let xChanges = ObsRecorder<Change<Int>>()
    let aChanges = ObsRecorder<Change<Int>>()
    let b = store.observe(\.b, from: .nextChange) { bChanges.append($0) }
    let x = store.observe(\.inner.x, from: .nextChange) { xChanges.append($0) }
    let a = store.observe(\.a, from: .nextChange) { aChanges.append($0) }

    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsIncrementA())

    #expect(bChanges.values.isEmpty)
    #expect(xChanges.values.isEmpty)
    #expect(aChanges.values == [Change(old: 0, new: 1), Change(old: 1, new: 2)])
    withExtendedLifetime((a, b, x)) {}
  }

  @Test func severalObserversOfOnePathAllFireWithTheSameChange() {
    let store = ObsFixtures.store()
    let recorders = (0..<3).map { _ in ObsRecorder<Change<Int>>() }
    let subscriptions = recorders.map { recorder in
      store.observe(\.a, from: .nextChange) { recorder.append($0) }
    }
    store.dispatch(ObsSetA(value: 4))
    store.dispatch(ObsSetB(value: 4))
    store.dispatch(ObsSetA(value: 6))
    for recorder in recorders {
      #expect(recorder.values == [Change(old: 0, new: 4), Change(old: 4, new: 6)])
    }
    withExtendedLifetime(subscriptions) {}
  }

  @Test func cancellingOneObserverOfAPathLeavesTheOthersFiring() {
    let store = ObsFixtures.store()
    let kept = ObsRecorder<Change<Int>>()
    let dropped = ObsRecorder<Change<Int>>()
    let keep = store.observe(\.a, from: .nextChange) { kept.append($0) }
    let drop = store.observe(\.a, from: .nextChange) { dropped.append($0) }
    store.dispatch(ObsSetA(value: 1))
    drop.cancel()
    store.dispatch(ObsSetA(value: 2))
    #expect(kept.values == [Change(old: 0, new: 1), Change(old: 1, new: 2)])
    #expect(dropped.values == [Change(old: 0, new: 1)])
    withExtendedLifetime(keep) {}
  }

  @Test func aPathObservedAgainAfterAllItsObserversWereCancelledReportsTheRightOldValue() {
    let store = ObsFixtures.store()
    let first = store.observe(\.a) { _ in }
    first.cancel()
    store.dispatch(ObsSetA(value: 7))
    #expect(store.observerCount == 0)

    let changes = ObsRecorder<Change<Int>>()
    let again = store.observe(\.a) { changes.append($0) }
    store.dispatch(ObsSetA(value: 8))
    #expect(changes.values == [Change(old: 7, new: 7), Change(old: 7, new: 8)])
    withExtendedLifetime(again) {}
  }

  @Test func nestedPathsFireOnlyForTheirOwnLeaf() {
    let store = ObsFixtures.store()
    let x = ObsRecorder<Change<Int>>()
    let y = ObsRecorder<Change<Int>>()
    let inner = ObsRecorder<Change<ObsInner>>()
    let subscriptions = [
      store.observe(\.inner.x, from: .nextChange) { x.append($0) },
      store.observe(\.inner.y, from: .nextChange) { y.append($0) },
      store.observe(\.inner, from: .nextChange) { inner.append($0) },
    ]
    store.dispatch(ObsSetInnerX(value: 2))
    store.dispatch(ObsSetA(value: 1))
    #expect(x.values == [Change(old: 0, new: 2)])
    #expect(y.values.isEmpty)
    #expect(inner.values == [Change(old: ObsInner(), new: ObsInner(x: 2, y: 0))])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func resetIsObservedAsAChangeBackToTheInitialValue() {
    let store = ObsFixtures.store(ObsState(a: 1))
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a, from: .nextChange) { changes.append($0) }
    store.dispatch(ObsSetA(value: 5))
    store.reset()
    store.reset()
    #expect(changes.values == [Change(old: 1, new: 5), Change(old: 5, new: 1)])
    withExtendedLifetime(subscription) {}
  }

  @Test func equatableWholeStateObserversAreNotCalledForActionsThatChangeNothing() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<ObsState>()
    let subscription = store.observe(from: .nextChange) { states.append($0) }
    store.dispatch(ObsNoChange())
    store.dispatch(ObsUnhandled())
    store.dispatch(ObsSetA(value: 0))
    #expect(states.values.isEmpty)

    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 1))
    #expect(states.values == [ObsState(a: 1)])
    withExtendedLifetime(subscription) {}
  }

  @Test func nonEquatableWholeStateObserversAreCalledForEveryHandledAction() {
    let store = ObsFixtures.plainStore()
    let states = ObsRecorder<Int>()
    let subscription = store.observe(from: .nextChange) { states.append($0.a) }
    store.dispatch(ObsNoChange())
    store.dispatch(ObsSetA(value: 0))
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsUnhandled())  // not handled by the store: not an action it reduced
    #expect(states.values == [0, 0, 2])
    withExtendedLifetime(subscription) {}
  }

  @Test func keyPathObserversOfANonEquatableStateStillFireOnlyOnChanges() {
    let store = ObsFixtures.plainStore()
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.a, from: .nextChange) { changes.append($0) }
    store.dispatch(ObsNoChange())
    store.dispatch(ObsSetA(value: 0))
    store.dispatch(ObsSetB(value: 3))
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values == [Change(old: 0, new: 2)])
    withExtendedLifetime(subscription) {}
  }
}
