import Foundation
import Synchronization
import Testing

@testable import Sluice

/// The drainer's batches on a real lane (issue 24, speed): a drainer runs the queued items of its
/// chain several per transition, and still stops at the next item when another thread takes a
/// lock (`LaneInterleavingTests` checks the machine's side over every interleaving).
@Suite struct LaneBatchTests {
  /// Twenty actions held by a lock replay in one batch; while the fifth one's observer runs,
  /// another thread pauses the lane. The sixth does not run: the releasing caller returns with
  /// the rest held, and the rest runs, in order, once the second lock is released.
  @Test func aPauseFromAnotherThreadStopsABatchAtTheNextItem() async {
    let dispatcher = Dispatcher()
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let reached = DispatchSemaphore(value: 0)
    let paused = DispatchSemaphore(value: 0)
    let subscription = store.observe(\.last, from: .nextChange) { change in
      guard change.new == 5 else { return }
      reached.signal()
      // Bounded, so a failing test never leaves the lane held forever.
      _ = paused.wait(timeout: .now() + 60)
    }
    let second = Guarded<Lock?>(nil)
    Thread {
      guard reached.wait(timeout: .now() + 60) == .success else { return }
      second.withLock { $0 = dispatcher.pause() }
      paused.signal()
    }.start()
    let idsWhenReleased = await offPool {
      let first = dispatcher.pause()
      for id in 1...20 { store.dispatch(LaneAdd(id: id), mode: .async) }
      first.release()
      return store.state.ids
    }
    #expect(idsWhenReleased == [1, 2, 3, 4, 5])
    #expect(dispatcher.queueDepth == 16)
    await offPool { second.withLock { $0 }?.release() }
    #expect(store.state.ids == Array(1...20))
    withExtendedLifetime(subscription) {}
  }
}
