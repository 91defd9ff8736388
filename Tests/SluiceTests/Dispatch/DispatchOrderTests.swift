import Foundation
import Sluice
import Testing

@Suite struct DispatchOrderTests {
  @Test func actionsAreReducedInArrivalOrder() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    for id in 0..<500 {
      store.dispatch(LaneAdd(id: id), mode: id.isMultiple(of: 2) ? .sync : .async)
    }
    store.dispatch(LaneNoop())
    #expect(store.state.ids == Array(0..<500))
  }

  @Test func everyStoreOnALaneSeesTheSameTotalOrder() async {
    let dispatcher = Dispatcher()
    let first = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let second = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let finished = await runOnThreads(4) { thread in
      for index in 0..<1_000 {
        dispatcher.dispatch(
          LaneAdd(id: thread * 1_000 + index), mode: index % 3 == 0 ? .async : .sync)
      }
    }
    #expect(finished)
    dispatcher.dispatch(LaneNoop())
    #expect(first.state.ids.count == 4_000)
    #expect(first.state.ids == second.state.ids)
    // Each thread's own actions keep their order.
    for thread in 0..<4 {
      let own = first.state.ids.filter { $0 / 1_000 == thread }
      #expect(own == Array(thread * 1_000..<(thread + 1) * 1_000))
    }
  }

  @Test func aStoreWithoutADispatcherOwnsItsLane() {
    let a = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let b = Store(initialState: LaneLog(), reducer: laneLogReducer)
    a.dispatch(LaneAdd(id: 1))
    #expect(a.state.total == 1)
    #expect(b.state.total == 0)
    #expect(a.dispatcher !== b.dispatcher)
  }

  @Test func syncDispatchReturnsAfterReducersAndSynchronousObserversRan() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let seen = Recorder<Int>()
    let subscription = store.observe(from: .nextChange) { seen.append($0.total) }
    store.dispatch(LaneAdd(id: 1))
    #expect(store.state.total == 1)
    #expect(seen.values == [1])
    subscription.cancel()
  }

  @Test func dispatchFromInsideTheLaneIsQueuedAndRunsBeforeTheOutermostDispatchReturns() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let events = Recorder<String>()
    let subscription = store.observe(\.total, from: .nextChange) { change in
      events.append("observer sees \(change.new)")
      if change.new == 1 {
        store.dispatch(LaneAdd(id: 2))
        // Queued, not nested: the state has not moved yet.
        events.append("inner dispatch returned, total \(store.state.total)")
      }
    }
    store.dispatch(LaneAdd(id: 1))
    events.append("outer dispatch returned, total \(store.state.total)")
    #expect(
      events.values == [
        "observer sees 1", "inner dispatch returned, total 1", "observer sees 2",
        "outer dispatch returned, total 2",
      ])
    subscription.cancel()
  }

  @Test func anObserverThatDispatchesSeesInitialThenNextInOrder() {
    // RxStateFlow / Unicore: the observer gets the current state, dispatches, and sees the next.
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let totals = Recorder<Int>()
    let subscription = store.observe { state in
      totals.append(state.total)
      if state.total == 0 { store.dispatch(LaneAdd(id: 7)) }
    }
    #expect(totals.values == [0, 1])
    subscription.cancel()
  }

  @Test func aCommandDispatchesConditionally() {
    // RxStateFlow's IncreaseCounter command: dispatch only while the counter is below 10.
    func increaseCounter(state: LaneLog, dispatch: (LaneAdd) -> Void) {
      if state.total < 10 { dispatch(LaneAdd(id: state.total)) }
    }
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    for _ in 0..<15 { increaseCounter(state: store.state) { store.dispatch($0) } }
    #expect(store.state.total == 10)
  }

  @Test func aDispatchFromABackgroundThreadIsObserved() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let seen = Recorder<Int>()
    let subscription = store.observe(from: .nextChange) { seen.append($0.total) }
    await offPool { store.dispatch(LaneAdd(id: 1)) }
    #expect(seen.values == [1])
    subscription.cancel()
  }

  @Test func anActionNoStoreHandlesChangesNothing() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let seen = Recorder<Int>()
    let subscription = store.observe(from: .nextChange) { seen.append($0.total) }
    store.dispatch(LaneNoop())
    #expect(seen.values.isEmpty)
    #expect(store.state == LaneLog())
    subscription.cancel()
  }
}
