import Foundation
import Testing

@testable import Sluice

/// S6: observers run in registration order, never concurrently with themselves, and see states
/// in lane order.
@Suite struct ObservationOrderTests {
  @Test func wholeStateAndKeyPathObserversRunInOneGlobalRegistrationOrder() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    let subscriptions = [
      store.observe(\.a, from: .nextChange) { _ in log.append("a1") },
      store.observe(from: .nextChange) { _ in log.append("whole1") },
      store.observe(\.b, from: .nextChange) { _ in log.append("b1") },
      store.observe(\.a, from: .nextChange) { _ in log.append("a2") },
      store.observe(\.inner.x, from: .nextChange) { _ in log.append("x1") },
      store.observe(from: .nextChange) { _ in log.append("whole2") },
      store.observe(\.b, from: .nextChange) { _ in log.append("b2") },
    ]

    store.dispatch(ObsSetAB(a: 1, b: 1))
    #expect(log.values == ["a1", "whole1", "b1", "a2", "whole2", "b2"])

    log.removeAll()
    store.dispatch(ObsSetB(value: 2))
    #expect(log.values == ["whole1", "b1", "whole2", "b2"])

    log.removeAll()
    store.dispatch(ObsSetInnerX(value: 3))
    #expect(log.values == ["whole1", "x1", "whole2"])

    log.removeAll()
    store.dispatch(ObsSetA(value: 4))
    #expect(log.values == ["a1", "whole1", "a2", "whole2"])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func currentValueDeliveriesAndLaterChangesFollowRegistrationOrder() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    let first = store.observe { state in log.append("whole:\(state.a)") }
    let second = store.observe(\.a) { change in log.append("a:\(change.old)->\(change.new)") }
    let third = store.observe { state in log.append("whole2:\(state.a)") }
    #expect(log.values == ["whole:0", "a:0->0", "whole2:0"])

    log.removeAll()
    store.dispatch(ObsSetA(value: 7))
    #expect(log.values == ["whole:7", "a:0->7", "whole2:7"])
    withExtendedLifetime((first, second, third)) {}
  }

  @Test func anObserverRegisteredAgainAfterCancellingRunsLast() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    let first = store.observe(\.a, from: .nextChange) { _ in log.append("first") }
    let second = store.observe(from: .nextChange) { _ in log.append("second") }
    first.cancel()
    let again = store.observe(\.a, from: .nextChange) { _ in log.append("again") }
    let third = store.observe(from: .nextChange) { _ in log.append("third") }

    store.dispatch(ObsSetA(value: 1))
    #expect(log.values == ["second", "again", "third"])
    withExtendedLifetime((second, again, third)) {}
  }

  @Test func anObserverSeesEveryStateInLaneOrderWhenManyThreadsDispatch() async {
    let store = ObsFixtures.store()
    let probe = ObsOverlapProbe()
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Change<Int>>()
    let wholeSubscription = store.observe { state in probe.call { states.append(state.a) } }
    let pathSubscription = store.observe(\.a, from: .nextChange) { change in
      probe.call { changes.append(change) }
    }

    let threads = 4
    let perThread = 250
    let workers = ObsThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(ObsIncrementA()) }
    }
    #expect(await workers.join())

    let total = threads * perThread
    #expect(store.state.a == total)
    #expect(states.values == Array(0...total))
    #expect(changes.values == (0..<total).map { Change(old: $0, new: $0 + 1) })
    #expect(probe.overlapCount == 0)
    withExtendedLifetime((wholeSubscription, pathSubscription)) {}
  }

  @Test func asyncDispatchesFromManyThreadsAreObservedCompleteAndInOrder() async {
    let store = ObsFixtures.store()
    let probe = ObsOverlapProbe()
    let states = ObsRecorder<Int>()
    let subscription = store.observe { state in probe.call { states.append(state.a) } }

    let threads = 4
    let perThread = 250
    let workers = ObsThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(ObsIncrementA(), mode: .async) }
    }
    #expect(await workers.join())

    let total = threads * perThread
    #expect(await states.waitForCount(total + 1))
    #expect(states.values == Array(0...total))
    #expect(probe.overlapCount == 0)
    withExtendedLifetime(subscription) {}
  }

  @Test func resetFromInsideAnObserverIsDeliveredAfterTheCurrentRoundInLaneOrder() {
    let store = ObsFixtures.store()
    let first = ObsRecorder<Int>()
    let second = ObsRecorder<Int>()
    let resetting = store.observe { [weak store] state in
      first.append(state.a)
      if state.a == 5 { store?.reset() }
    }
    let watching = store.observe { state in second.append(state.a) }

    store.dispatch(ObsSetA(value: 5))

    #expect(store.state.a == 0)
    // Both observers must see the lane's order: 0 (initial), 5 (the action), 0 (the reset).
    #expect(first.values == [0, 5, 0])
    #expect(second.values == [0, 5, 0])
    withExtendedLifetime((resetting, watching)) {}
  }

  @Test func anObserverThatDispatchesLetsLaterObserversSeeTheCurrentStateFirst() {
    let store = ObsFixtures.store()
    let later = ObsRecorder<ObsState>()
    let dispatching = store.observe(\.a, from: .nextChange) { [weak store] change in
      store?.dispatch(ObsSetB(value: change.new * 10))
    }
    let watching = store.observe(from: .nextChange) { state in later.append(state) }

    store.dispatch(ObsSetA(value: 2))

    // The nested dispatch runs after the current round, before the outer dispatch returns.
    #expect(later.values == [ObsState(a: 2, b: 0), ObsState(a: 2, b: 20)])
    #expect(store.state == ObsState(a: 2, b: 20))
    withExtendedLifetime((dispatching, watching)) {}
  }
}
