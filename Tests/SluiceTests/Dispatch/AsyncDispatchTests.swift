import Foundation
import Sluice
import SluiceTestSupport
import Testing

@Suite struct AsyncDispatchTests {
  /// Holds the lane: an observer blocks on a semaphore until the test releases it.
  final class LaneBlocker: @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
  }

  /// Starts a background dispatch whose observer holds the lane until `blocker.release`.
  func holdLane(_ store: Store<LaneLog>, _ blocker: LaneBlocker) -> Subscription {
    let subscription = store.observe(\.last, from: .nextChange) { change in
      if change.new == 0 {
        blocker.entered.signal()
        // Bounded, so a failing test never leaves the lane held forever.
        _ = blocker.release.wait(timeout: hangGuardDeadline())
      }
    }
    // A dedicated thread: blocking a `DispatchQueue.global()` thread would starve the Swift
    // task pool, which shares that (two-thread) root queue on Linux.
    Thread { store.dispatch(LaneAdd(id: 0)) }.start()
    return subscription
  }

  @Test func asyncDispatchNeverBlocksAndTheQueueDepthIsObservable() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let blocker = LaneBlocker()
    let subscription = holdLane(store, blocker)
    #expect(await wait(for: blocker.entered))
    for id in 1...100 { store.dispatch(LaneAdd(id: id), mode: .async) }
    #expect(store.dispatcher.queueDepth == 100)
    blocker.release.signal()
    await offPool { store.dispatch(LaneNoop()) }  // waits behind the 100 queued actions
    #expect(store.state.ids == Array(0...100))
    #expect(store.dispatcher.queueDepth == 0)
    subscription.cancel()
  }

  @Test func asyncDispatchOnAnIdleLaneIsProcessedOnTheLaneQueue() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    store.dispatch(LaneAdd(id: 1), mode: .async)
    #expect(await obsEventually { store.state.total == 1 })
  }

  @Test func sendResumesAfterTheActionWasProcessed() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    await store.send(LaneAdd(id: 1))
    #expect(store.state.total == 1)
    let blocker = LaneBlocker()
    let subscription = holdLane(store, blocker)
    _ = subscription
    #expect(await wait(for: blocker.entered))
    async let sent: Void = store.send(LaneAdd(id: 2))
    #expect(await obsEventually { store.dispatcher.queueDepth == 1 })
    blocker.release.signal()
    await sent
    #expect(store.state.ids == [1, 0, 2])
  }

  @Test func aQueueBoundMakesSendWaitForRoom() async {
    let dispatcher = Dispatcher(maxQueueDepth: 2)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let blocker = LaneBlocker()
    let subscription = holdLane(store, blocker)
    _ = subscription
    #expect(await wait(for: blocker.entered))
    #expect(dispatcher.maxQueueDepth == 2)
    let progress = Recorder<Int>()
    let senders = Task {
      await withTaskGroup(of: Void.self) { group in
        for id in 1...5 {
          group.addTask {
            await store.send(LaneAdd(id: id))
            progress.append(id)
          }
        }
      }
    }
    // Two actions fill the queue; the other senders wait for room instead of queueing.
    #expect(await obsEventually { dispatcher.queueDepth == 2 })
    for _ in 0..<50 { await Task.yield() }
    #expect(dispatcher.queueDepth == 2)
    #expect(progress.values.isEmpty)
    blocker.release.signal()
    await senders.value
    #expect(Set(progress.values) == Set(1...5))
    #expect(store.state.total == 6)
  }
}
