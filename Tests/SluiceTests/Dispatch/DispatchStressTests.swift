import Foundation
import Sluice
import Synchronization
import Testing

/// Four threads × 10,000 dispatches on one lane while observers dispatch re-entrantly; and the
/// same with two lanes dispatching into each other. Run again under the thread sanitizer in CI.
@Suite struct DispatchStressTests {
  @Test func everyActionIsReducedExactlyOnceAndObserversSeeMonotonicStates() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let threads = 4
    let perThread = 10_000
    // Observer 1 echoes every 100th outer action with a re-entrant dispatch (ids ≥ 1_000_000).
    let echo = store.observe(\.last, from: .nextChange) { change in
      if let last = change.new, last < 1_000_000, last.isMultiple(of: 100) {
        store.dispatch(LaneAdd(id: 1_000_000 + last))
      }
    }
    // Observers 2 and 3 check that totals only grow, by exactly one per call.
    let violations = Atomic<Int>(0)
    let monotonic = (0..<2).map { _ in
      store.observe(\.total, from: .nextChange) { change in
        if change.new != change.old + 1 { violations.add(1, ordering: .relaxed) }
      }
    }
    let finished = await runOnThreads(threads) { thread in
      for index in 0..<perThread {
        store.dispatch(
          LaneAdd(id: thread * perThread + index), mode: index % 4 == 0 ? .async : .sync)
      }
    }
    #expect(finished, "deadlock or starvation")
    store.dispatch(LaneNoop())
    let ids = store.state.ids
    let outer = ids.filter { $0 < 1_000_000 }
    let echoes = ids.filter { $0 >= 1_000_000 }
    #expect(outer.count == threads * perThread)
    #expect(Set(outer).count == outer.count)
    #expect(echoes.count == threads * perThread / 100)
    #expect(Set(echoes).count == echoes.count)
    #expect(violations.load(ordering: .relaxed) == 0)
    echo.cancel()
    for subscription in monotonic { subscription.cancel() }
  }

  @Test func twoLanesDispatchingIntoEachOtherUnderLoad() async {
    let lanes = [
      Store(initialState: LaneLog(), reducer: laneLogReducer),
      Store(initialState: LaneLog(), reducer: laneLogReducer),
    ]
    let subscriptions = (0..<2).map { index in
      lanes[index].observe(\.total, from: .nextChange) { _ in
        if let last = lanes[index].state.last, last >= 0 {
          lanes[1 - index].dispatch(LaneAdd(id: -1 - last))
        }
      }
    }
    let finished = await runOnThreads(4) { thread in
      let store = lanes[thread % 2]
      for index in 0..<10_000 {
        store.dispatch(LaneAdd(id: thread * 10_000 + index), mode: index % 5 == 0 ? .async : .sync)
      }
    }
    #expect(finished, "deadlock between two lanes")
    for lane in lanes { lane.dispatch(LaneNoop()) }
    // Each lane: 20,000 own actions plus one echo of each of the other lane's 20,000.
    #expect(lanes[0].state.total == 40_000)
    #expect(lanes[1].state.total == 40_000)
    for subscription in subscriptions { subscription.cancel() }
  }
}
