import Clocks
import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// A lock's timeout releases the lock from a task of the cooperative pool: the release never
/// waits there for the thread that holds the lane (it replays the held actions itself only when
/// the lane is free).
@Suite struct LockTimeoutWaitTests {
  @Test func aTimedOutLockIsReleasedWhileAnotherThreadHoldsTheLane() async {
    let clock = TestClock()
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let dispatcher = store.dispatcher
    // A thread of its own holds the lane, longer than the hang guard below.
    let hold = LaneHold(store)
    #expect(await hold.held())
    let lock = dispatcher.pause(timeout: .seconds(5), clock: clock)
    store.dispatch(LaneAdd(id: 1), mode: .async)
    let released = DispatchSemaphore(value: 0)
    lock.onRelease { released.signal() }
    await clock.advance(by: .seconds(5))
    let releasedWhileHeld = await wait(for: released, timeout: hangGuardSeconds)
    hold.release.signal()
    #expect(releasedWhileHeld)
    // The held action replays once the lane is free.
    await store.send(LaneAdd(id: 2))
    #expect(store.state.ids == [0, 1, 2])
    hold.cancel()
  }
}
