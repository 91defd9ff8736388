import Foundation
import Testing

@testable import Sluice

/// `maxQueueDepth` bounds asynchronous dispatches too, and never drops an action: a caller
/// outside the lane waits until its action ran when the queue is full; where waiting could
/// deadlock (the lane itself, a thread holding another lane, a paused lane) the action is
/// queued past the bound and the overflow is reported.
@Suite struct AsyncDispatchBoundTests {
  @Test func aFullQueueMakesAnAsyncDispatchFromOutsideWaitUntilItsActionRan() async {
    let dispatcher = Dispatcher(maxQueueDepth: 3)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let blocker = AsyncDispatchTests.LaneBlocker()
    let subscription = AsyncDispatchTests().holdLane(store, blocker)
    #expect(await wait(for: blocker.entered))
    let returned = Recorder<Int>()
    let producer = Task {
      await runOnThreads(1) { _ in
        for id in 1...10 {
          store.dispatch(LaneAdd(id: id), mode: .async)
          returned.append(id)
        }
      }
    }
    // Three fill the queue; the fourth waits with its action queued, and nothing else comes.
    #expect(await obsEventually { dispatcher.queueDepth == 4 })
    for _ in 0..<50 { await Task.yield() }
    #expect(returned.values == [1, 2, 3])
    #expect(dispatcher.queueDepth == 4)
    blocker.release.signal()
    #expect(await producer.value)
    #expect(await obsEventually { store.state.total == 11 })
    #expect(store.state.ids == Array(0...10))
    subscription.cancel()
  }

  @Test func onAPausedLaneTheBoundIsExceededAndReportedOncePerOverflow() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(maxQueueDepth: 2, reporter: issues.reporter)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    // On a dedicated thread: a wrong policy would block it, and the deadline turns that into a
    // failure.
    let finished = await runOnThreads(1, timeout: 60) { _ in
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
    let finished = await runOnThreads(1, timeout: 60) { _ in store.dispatch(LaneAdd(id: 0)) }
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

  @Test func concurrentProducersLoseNothingKeepTheirOrderAndStayNearTheBound() async {
    let dispatcher = Dispatcher(maxQueueDepth: 8)
    let store = Store(
      initialState: [[Int]](repeating: [], count: 4), dispatcher: dispatcher,
      reducer: Reducer<[[Int]]>().on(LaneAdd.self) { state, action in
        state[action.id / 10_000].append(action.id % 10_000)
      })
    let deepest = Recorder<Int>()
    // Reads the depth from the lane after every action, while producers push.
    let subscription = store.observe { _ in deepest.append(dispatcher.queueDepth) }
    let finished = await runOnThreads(4, timeout: 60) { producer in
      for index in 0..<500 {
        store.dispatch(LaneAdd(id: producer * 10_000 + index), mode: .async)
      }
    }
    #expect(finished)
    #expect(await obsEventually { store.state.allSatisfy { $0.count == 500 } })
    #expect(store.state == Array(repeating: Array(0..<500), count: 4))
    // The bound, plus at most the action of each waiting producer.
    #expect((deepest.values.max() ?? 0) <= 8 + 4)
    subscription.cancel()
  }
}
