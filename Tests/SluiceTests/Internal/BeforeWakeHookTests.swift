import Foundation
import Synchronization
import Testing

@testable import Sluice

/// The lane's "before waking waiters" hooks (what write-through persistence is built on): an
/// armed hook runs on the lane, once per chain, before the caller waiting for that chain
/// returns — also when another thread drains the caller's action.
@Suite struct BeforeWakeHookTests {
  final class CountingHook: BeforeWakeHook, @unchecked Sendable {
    // @unchecked Sendable: `isArmed` is touched by the lane's holder only; the rest is atomic
    // or immutable.
    var isArmed = false
    let runs = Atomic<Int>(0)
    let ranOnTheLane = Atomic<Bool>(true)
    let lane: Lane

    init(lane: Lane) {
      self.lane = lane
    }

    func beforeWake() {
      if !lane.isCurrentThreadDraining { ranOnTheLane.store(false, ordering: .relaxed) }
      runs.wrappingAdd(1, ordering: .relaxed)
    }

    var count: Int { runs.load(ordering: .relaxed) }
    var alwaysRanOnTheLane: Bool { ranOnTheLane.load(ordering: .relaxed) }
  }

  /// A store whose observer arms `hook` on every change.
  func makeStore() -> (Store<LaneLog>, CountingHook, Subscription) {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let lane = store.core.lane
    let hook = CountingHook(lane: lane)
    let subscription = store.observe(from: .nextChange) { _ in lane.arm(hook) }
    return (store, hook, subscription)
  }

  @Test func anArmedHookRunsBeforeTheDispatchReturns() {
    let (store, hook, subscription) = makeStore()
    store.dispatch(LaneAdd(id: 1))
    #expect(hook.count == 1)
    store.dispatch(LaneAdd(id: 2))
    #expect(hook.count == 2)
    #expect(hook.alwaysRanOnTheLane)
    subscription.cancel()
  }

  @Test func aChainRunsTheHookOnceAtItsEnd() {
    let (store, hook, subscription) = makeStore()
    let followUps = store.observe(\.last, from: .nextChange) { change in
      guard let id = change.new, id < 4 else { return }
      store.dispatch(LaneAdd(id: id + 1))
    }
    store.dispatch(LaneAdd(id: 1))
    #expect(store.state.ids == [1, 2, 3, 4])
    #expect(hook.count == 1)
    followUps.cancel()
    subscription.cancel()
  }

  @Test func theHookRunsBeforeAWaitingCallerIsWokenByAnotherThread() async {
    let (store, hook, subscription) = makeStore()
    let holder = LaneGuaranteeTests.Holder(store)
    let seenOnReturn = Recorder<Int>()
    let returned = DispatchSemaphore(value: 0)
    Thread {
      store.dispatch(LaneAdd(id: 5))
      seenOnReturn.append(hook.count)
      returned.signal()
    }.start()
    // The caller's action is queued behind the holder's step; the holder's thread drains it.
    while store.core.lane.queueDepth == 0 { await Task.yield() }
    holder.release()
    #expect(await wait(for: returned))
    #expect(seenOnReturn.values.count == 1)
    #expect((seenOnReturn.values.first ?? 0) >= 1, "the caller returned before the hook ran")
    #expect(hook.alwaysRanOnTheLane)
    subscription.cancel()
  }
}
