import Foundation
import Sluice
import SluiceTestSupport
import Synchronization
import Testing

/// S5 and the deadlock-freedom half of S2; run again under the thread sanitizer in CI.
@Suite struct ThreadSafetyConcurrencyTests {
  struct Pair: Equatable, Sendable {
    var a = 0
    var b = 0
    var text = ""
  }
  struct Bump: Action {}

  @Test func stateIsNeverTornAndReducersNeverOverlap() async {
    let inside = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let store = Store(
      initialState: Pair(),
      reducer: Reducer<Pair>().on(Bump.self) { state, _ in
        if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 {
          overlaps.add(1, ordering: .relaxed)
        }
        state.a += 1
        state.text = String(repeating: "x", count: state.a % 50)
        state.b += 1
        inside.subtract(1, ordering: .sequentiallyConsistent)
      })
    let torn = Atomic<Int>(0)
    let finished = await runOnThreads(4) { thread in
      for _ in 0..<5_000 {
        if thread < 2 {
          store.dispatch(Bump(), mode: .sync)
        } else {
          let snapshot = store.state
          if snapshot.a != snapshot.b || snapshot.text.count != snapshot.a % 50 {
            torn.add(1, ordering: .relaxed)
          }
        }
      }
    }
    #expect(finished)
    #expect(torn.load(ordering: .relaxed) == 0)
    #expect(overlaps.load(ordering: .relaxed) == 0)
    #expect(store.state.a == 10_000)
  }

  @Test func observeAndCancelFromManyThreadsWhileDispatching() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let calledAfterCancel = Atomic<Int>(0)
    let finished = await runOnThreads(4) { thread in
      for index in 0..<500 {
        if thread == 0 {
          store.dispatch(LaneAdd(id: index))
        } else {
          let cancelled = Atomic<Bool>(false)
          let subscription = store.observe { _ in
            if cancelled.load(ordering: .acquiring) { calledAfterCancel.add(1, ordering: .relaxed) }
          }
          subscription.cancel()
          cancelled.store(true, ordering: .releasing)
        }
      }
    }
    #expect(finished)
    #expect(calledAfterCancel.load(ordering: .relaxed) == 0)
    #expect(store.observerCount == 0)
  }

  @Test func twoLanesWhoseObserversDispatchIntoEachOtherNeverDeadlock() async {
    let left = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let right = Store(initialState: LaneLog(), reducer: laneLogReducer)
    // Every action with an even id on one lane causes an odd-id echo on the other.
    let echoLeft = left.observe(\.total, from: .nextChange) { _ in
      if let last = left.state.last, last.isMultiple(of: 2) {
        right.dispatch(LaneAdd(id: last + 1))
      }
    }
    let echoRight = right.observe(\.total, from: .nextChange) { _ in
      if let last = right.state.last, last.isMultiple(of: 2) {
        left.dispatch(LaneAdd(id: last + 1))
      }
    }
    let finished = await runOnThreads(2, timeout: hangGuardSeconds) { thread in
      let target = thread == 0 ? left : right
      for index in 0..<2_000 { target.dispatch(LaneAdd(id: index * 2)) }
    }
    #expect(finished, "the two lanes deadlocked")
    left.dispatch(LaneNoop())
    right.dispatch(LaneNoop())
    // Nothing is lost: each lane got its 2,000 own actions and 2,000 echoes.
    #expect(left.state.total == 4_000)
    #expect(right.state.total == 4_000)
    echoLeft.cancel()
    echoRight.cancel()
  }
}
