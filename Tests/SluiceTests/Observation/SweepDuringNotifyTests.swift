import Testing

@testable import Sluice

/// The lane follows a step's observers without retaining each: an observer whose body sweeps the
/// registry (cancelling the next observer, then reading `observerCount`, which sweeps on the
/// lane at once) must not free an observer the step is about to visit.
@Suite struct SweepDuringNotifyTests {
  @Test func anObserverThatSweepsTheRegistryMidStepDoesNotBreakTheStep() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let calls = Recorder<String>()
    let later = Guarded<[Subscription]>([])
    let first = store.observe(from: .nextChange) { state in
      calls.append("first \(state.total)")
      for subscription in later.withLock({ $0 }) { subscription.cancel() }
      calls.append("count \(store.observerCount)")
    }
    let doomed = (0..<8).map { index in
      store.observe(from: .nextChange) { state in calls.append("doomed \(index) \(state.total)") }
    }
    let last = store.observe(from: .nextChange) { state in calls.append("last \(state.total)") }
    later.withLock { $0 = doomed }

    store.dispatch(LaneAdd(id: 1))
    store.dispatch(LaneAdd(id: 2))
    #expect(calls.values == ["first 1", "count 2", "last 1", "first 2", "count 2", "last 2"])
    first.cancel()
    last.cancel()
  }

  @Test func keyPathObserversSurviveASweepByAnEarlierObserver() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let calls = Recorder<String>()
    let later = Guarded<[Subscription]>([])
    let first = store.observe(\.total, from: .nextChange) { change in
      calls.append("first \(change.new)")
      for subscription in later.withLock({ $0 }) { subscription.cancel() }
      _ = store.observerCount
    }
    let doomed = (0..<4).map { _ in
      store.observe(\.total, from: .nextChange) { change in calls.append("doomed \(change.new)") }
    }
    let whole = store.observe(from: .nextChange) { state in calls.append("whole \(state.total)") }
    later.withLock { $0 = doomed }

    store.dispatch(LaneAdd(id: 1))
    #expect(calls.values == ["first 1", "whole 1"])
    first.cancel()
    whole.cancel()
  }
}
