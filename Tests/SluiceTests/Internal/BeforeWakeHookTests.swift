import Foundation
import SluiceTestSupport
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

  /// Issue 24, defect 2: "run the hooks, then wake" is one decision. A caller blocked on its
  /// action, whose chain is held by a lock taken from a third thread while the drainer runs
  /// unrelated lane work, returns only after the hook its action armed ran.
  @Test func aPauseFromAThirdThreadWakesTheCallerOnlyAfterTheHooksRan() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let lane = store.core.lane
    let hook = CountingHook(lane: lane)
    let holding = ObsEvent()
    let letHolderGo = ObsEvent()
    let inLaneWork = ObsEvent()
    let letLaneWorkGo = ObsEvent()
    let subscription = store.observe(\.last, from: .nextChange) { change in
      switch change.new {
      case 0?:
        // The worker holds the lane while the caller queues its action.
        holding.signal()
        _ = letHolderGo.waitBlocking(timeout: hangGuardSeconds)
      case 1?:
        // The caller's action arms the hook; another thread queues lane work, which runs
        // before the follow-up this action dispatches into the caller's chain.
        lane.arm(hook)
        let queued = ObsEvent()
        Thread {
          lane.perform(.query, .none) {
            inLaneWork.signal()
            _ = letLaneWorkGo.waitBlocking(timeout: hangGuardSeconds)
          }
          queued.signal()
        }.start()
        _ = queued.waitBlocking(timeout: hangGuardSeconds)
        store.dispatch(LaneAdd(id: 2))
      default: break
      }
    }
    store.dispatch(LaneAdd(id: 0), mode: .async)
    #expect(await holding.wait(timeout: hangGuardSeconds))
    let hooksRunWhenReturned = Recorder<Int>()
    let caller = Task {
      await obsOnBackgroundThread(timeout: hangGuardSeconds) {
        store.dispatch(LaneAdd(id: 1))
        hooksRunWhenReturned.append(hook.count)
      }
    }
    #expect(await obsEventually { store.dispatcher.queueDepth == 1 })
    letHolderGo.signal()
    #expect(await inLaneWork.wait(timeout: hangGuardSeconds))
    // The third thread: the caller's chain (its follow-up) is now held by the lock, while lane
    // work runs and the hook is armed. Until the work ends, the hook cannot run: the caller
    // must not be released yet (checked under the lane's lock, right after the pause).
    let lock = store.dispatcher.pause()
    #expect(hook.count == 0)
    #expect(
      lane.storage.peek { !$0.outcomes.values.contains(.finished) },
      "the pause released the caller before the hook ran")
    letLaneWorkGo.signal()
    #expect(await caller.value, "the caller did not return")
    #expect(hooksRunWhenReturned.values == [1], "the caller returned before the hook ran")
    #expect(await obsOnBackgroundThread(timeout: hangGuardSeconds) { lock.release() })
    #expect(store.state.ids == [0, 1, 2])
    subscription.cancel()
  }
}
