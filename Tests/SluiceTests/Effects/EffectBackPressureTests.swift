import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// An effect's `dispatch` into a full bounded queue never blocks the thread it runs on (a thread
/// of the cooperative pool): the action is queued past the bound and the overflow reported.
@Suite struct EffectBackPressureTests {
  struct Start: Action {
    let base: Int
  }

  @Test func effectsDispatchingIntoAFullQueueHoldNoThreadOfThePoolAndLoseNothing() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(maxQueueDepth: 1, reporter: issues.reporter)
    let gate = TxEvent()
    let effectsReturned = DispatchSemaphore(value: 0)
    let store = Store(
      initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer,
      effects: Effects<LaneLog>().on(Start.self) { action, context in
        _ = await gate.wait()
        for offset in 1...3 { context.dispatch(LaneAdd(id: action.base + offset)) }
        effectsReturned.signal()
      })
    // Two effects, suspended at the gate (no thread held).
    store.dispatch(Start(base: 100))
    store.dispatch(Start(base: 200))
    // A thread of its own holds the lane (longer than the hang guard below), and one action
    // fills the queue.
    let hold = LaneHold(store)
    #expect(await hold.held())
    store.dispatch(LaneAdd(id: 1), mode: .async)
    #expect(dispatcher.queueDepth == 1)
    // The effects dispatch into the full queue; then a task unrelated to the lane must run.
    gate.signal()
    let unrelatedRan = DispatchSemaphore(value: 0)
    Task { unrelatedRan.signal() }
    // The hang guard: a thread of its own waits (``hangGuard`` at most) for both effects to return
    // and the unrelated task to run, and lets go of the lane either way.
    let withoutTheLane = await offPool { () -> Bool in
      let deadline = hangGuardDeadline()
      let returned = (0..<2).allSatisfy { _ in
        effectsReturned.wait(timeout: deadline) == .success
      }
      let ran = unrelatedRan.wait(timeout: deadline) == .success
      hold.release.signal()
      return returned && ran
    }
    #expect(withoutTheLane)
    // Everything queued runs once the lane is free: nothing was lost.
    await store.send(LaneAdd(id: 999))
    let ids = store.state.ids
    #expect(ids.sorted() == [0, 1, 101, 102, 103, 201, 202, 203, 999])
    #expect(ids.filter { (100..<200).contains($0) } == [101, 102, 103])
    #expect(ids.filter { (200..<300).contains($0) } == [201, 202, 203])
    #expect(issues.kinds.first == .queueBoundExceeded)
    hold.cancel()
  }
}
