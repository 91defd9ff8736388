import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// `maxQueueDepth` never makes a dispatch wait and never drops an action: an asynchronous
/// dispatch that finds the queue full queues its action past the bound and returns, and the
/// overflow is reported once until the queue is back within the bound; `send` waits for room
/// (`AsyncDispatchTests`).
@Suite struct AsyncDispatchBoundTests {
  @Test func aFullQueueLetsAnAsyncDispatchFromOutsideReturnAndReportsTheOverflow() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(maxQueueDepth: 3, reporter: issues.reporter)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let blocker = AsyncDispatchTests.LaneBlocker()
    let subscription = AsyncDispatchTests().holdLane(store, blocker)
    #expect(await wait(for: blocker.entered))
    // On a thread of its own, with a deadline: a dispatch that waited would fail the test.
    let returned = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      for id in 1...10 { store.dispatch(LaneAdd(id: id), mode: .async) }
    }
    #expect(returned)
    #expect(dispatcher.queueDepth == 10)
    #expect(issues.kinds == [.queueBoundExceeded])
    #expect(issues.all.first?.message.contains("holds 4 items") == true)
    blocker.release.signal()
    await store.send(LaneAdd(id: 11))
    #expect(store.state.ids == Array(0...11))
    subscription.cancel()
  }

  @Test func onAPausedLaneTheBoundIsExceededAndReportedOncePerOverflow() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(maxQueueDepth: 2, reporter: issues.reporter)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    // On a dedicated thread: a wrong policy would block it, and the deadline turns that into a
    // failure.
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      let lock = dispatcher.pause()
      for id in 1...5 { store.dispatch(LaneAdd(id: id), mode: .async) }
      #expect(dispatcher.queueDepth == 5)
      lock.release()
      let again = dispatcher.pause()
      for id in 6...9 { store.dispatch(LaneAdd(id: id), mode: .async) }
      again.release()
    }
    #expect(finished)
    #expect(store.state.ids == Array(1...9))
    // One report per overflow: the queue went back within the bound in between.
    #expect(issues.kinds == [.queueBoundExceeded, .queueBoundExceeded])
    #expect(issues.all.first?.message.contains("holds 3 items") == true)
  }

  @Test func onTheLaneTheBoundIsExceededAndReported() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(maxQueueDepth: 1, reporter: issues.reporter)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let subscription = store.observe(\.last, from: .nextChange) { change in
      guard change.new == 0 else { return }
      for id in 1...4 { store.dispatch(LaneAdd(id: id), mode: .async) }
    }
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      store.dispatch(LaneAdd(id: 0))
    }
    #expect(finished)
    #expect(store.state.ids == Array(0...4))
    #expect(issues.kinds == [.queueBoundExceeded])
    subscription.cancel()
  }

  @Test func anEffectDispatchingIntoAFullQueueLosesNothing() async {
    let dispatcher = Dispatcher(maxQueueDepth: 2)
    struct Start: Action {}
    let done = TxEvent()
    let store = Store(
      initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer,
      effects: Effects<LaneLog>().on(Start.self) { _, context in
        for id in 1...200 { context.dispatch(LaneAdd(id: id)) }
        done.signal()
      })
    store.dispatch(Start())
    #expect(await done.wait())
    #expect(await obsEventually { store.state.total == 200 })
    #expect(store.state.ids == Array(1...200))
  }

  @Test func concurrentProducersLoseNothingAndKeepTheirOrder() async {
    let dispatcher = Dispatcher(maxQueueDepth: 8)
    let store = Store(
      initialState: [[Int]](repeating: [], count: 4), dispatcher: dispatcher,
      reducer: Reducer<[[Int]]>().on(LaneAdd.self) { state, action in
        state[action.id / 10_000].append(action.id % 10_000)
      })
    let finished = await runOnThreads(4, timeout: hangGuardSeconds) { producer in
      for index in 0..<500 {
        store.dispatch(LaneAdd(id: producer * 10_000 + index), mode: .async)
      }
    }
    #expect(finished)
    await store.send(LaneNoop())
    #expect(store.state == Array(repeating: Array(0..<500), count: 4))
  }

  /// Senders that race for the last places never take one place twice: with the lane held,
  /// every sender either queued its action or waits for room, and the queue holds no more than
  /// the bound. (A look for room, then a submit under a second lock, let two senders take the
  /// last place: `queueDepth` 3 with a bound of 2, seen in CI.)
  @Test func racingSendersNeverPassTheBound() async {
    let senders = 12
    for _ in 0..<200 {
      let dispatcher = Dispatcher(maxQueueDepth: 2)
      let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
      let blocker = AsyncDispatchTests.LaneBlocker()
      let subscription = AsyncDispatchTests().holdLane(store, blocker)
      #expect(await wait(for: blocker.entered))
      let sent = Task {
        await withTaskGroup(of: Void.self) { group in
          for id in 1...senders { group.addTask { await store.send(LaneAdd(id: id)) } }
        }
      }
      let settled = await obsEventually {
        dispatcher.lane.storage.peek { $0.mainDepth + $0.capacityWaiters.count } >= senders
      }
      #expect(settled)
      #expect(dispatcher.queueDepth == 2)
      blocker.release.signal()
      await sent.value
      #expect(store.state.ids.sorted() == Array(0...senders))
      subscription.cancel()
      guard dispatcher.queueDepth == 0 else { return }
    }
  }
}
