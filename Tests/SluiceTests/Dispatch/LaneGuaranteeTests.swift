import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// The lane's promises with another thread holding the lane: defects found by review, each
/// of which hung or leaked before the lane became one state machine.
@Suite struct LaneGuaranteeTests {
  /// A thread that holds a lane: it dispatches `LaneAdd(id: 0)`, whose observer blocks until
  /// `release()`.
  final class Holder: @unchecked Sendable {
    // @unchecked Sendable: semaphores are thread-safe; `subscription` is set once, before use.
    let entered = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    var subscription: Subscription?

    /// Starts holding `store`'s lane from a new thread; returns once the observer runs.
    init(_ store: Store<LaneLog>) {
      subscription = store.observe(\.last, from: .nextChange) { [entered, released] change in
        guard change.new == 0 else { return }
        entered.signal()
        // Bounded, so a failing test never leaves the lane held forever.
        _ = released.wait(timeout: hangGuardDeadline())
      }
      Thread { [finished] in
        store.dispatch(LaneAdd(id: 0))
        finished.signal()
      }.start()
      _ = entered.wait(timeout: hangGuardDeadline())
    }

    func release() {
      released.signal()
      _ = finished.wait(timeout: hangGuardDeadline())
    }
  }

  /// Runs `body` on a new thread; `true` when it returned within `seconds`, a hang guard.
  func returns(within seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) async
    -> Bool
  {
    await offPool {
      let done = DispatchSemaphore(value: 0)
      Thread {
        body()
        done.signal()
      }.start()
      return done.wait(timeout: .now() + seconds) == .success
    }
  }

  // Defect 1: the exclusive action's follow-up joins the caller's chain but waits for the
  // lock; the caller must not wait for it.
  @Test func exclusiveFromAnotherThreadReturnsWhenItsFollowUpWaitsForTheLock() async {
    let dispatcher = Dispatcher()
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let followUp = store.observe(\.last, from: .nextChange) { change in
      if change.new == 1 { store.dispatch(LaneAdd(id: 2)) }
    }
    let holder = Holder(store)
    let lock = Guarded<Lock?>(nil)
    let caller = Task {
      await returns(within: hangGuardSeconds) {
        let taken = dispatcher.exclusive(LaneAdd(id: 1))
        lock.withLock { $0 = taken }
      }
    }
    // The exclusive action is queued behind the held step; let the holder go on.
    #expect(await obsEventually { dispatcher.queueDepth == 1 })
    holder.release()
    #expect(await caller.value, "exclusive() never returned")
    #expect(store.state.ids == [0, 1])
    lock.withLock { $0 }?.release()
    #expect(store.state.ids == [0, 1, 2])
    withExtendedLifetime(followUp) {}
  }

  // Defect 2: a synchronous dispatch whose observer asks for an exclusive action (whose own
  // follow-up then waits for that lock), while another thread holds the lane.
  @Test func aDispatchWhoseObserverAsksForAnExclusiveActionReturns() async {
    let dispatcher = Dispatcher()
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let locks = Recorder<Lock>()
    let observer = store.observe(\.last, from: .nextChange) { change in
      if change.new == 5 { locks.append(dispatcher.exclusive(LaneAdd(id: 6))) }
      if change.new == 6 { store.dispatch(LaneAdd(id: 7)) }
    }
    let holder = Holder(store)
    let caller = Task { await returns(within: hangGuardSeconds) { store.dispatch(LaneAdd(id: 5)) } }
    #expect(await obsEventually { dispatcher.queueDepth == 1 })
    holder.release()
    #expect(await caller.value, "dispatch never returned")
    #expect(store.state.ids == [0, 5, 6])
    for lock in locks.values { lock.release() }
    #expect(store.state.ids == [0, 5, 6, 7])
    withExtendedLifetime(observer) {}
  }

  // Defect 11: a synchronous dispatch returns once its own chain was processed, even when it
  // holds the lane while other threads keep queueing asynchronous dispatches behind it.
  //
  // The flood never ends by itself: the flooders keep the queue filled (up to a bound, so a
  // failing run does not exhaust memory) until the dispatch returned. A dispatch that went on
  // draining the flood would never return: the hang guard fails the test.
  @Test func aSynchronousDispatchReturnsWhileOtherThreadsFloodTheLane() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let flooders = 2
    let go = DispatchSemaphore(value: 0)
    let flooded = DispatchSemaphore(value: 0)
    let stopped = Atomic<Bool>(false)
    // The caller's own action starts the flood, and goes on once the flood is queued behind it.
    let starter = store.observe(\.last, from: .nextChange) { change in
      guard change.new == 0 else { return }
      for _ in 0..<flooders { go.signal() }
      for _ in 0..<flooders { _ = flooded.wait(timeout: hangGuardDeadline()) }
    }
    // The flooders are threads of their own from the start, not a task that starts them: a task
    // can wait for a pool thread as long as other tests hold both, and the observer above would
    // wait for flooders that never started.
    let flooding = DispatchGroup()
    for thread in 0..<flooders {
      flooding.enter()
      Thread {
        defer { flooding.leave() }
        guard go.wait(timeout: hangGuardDeadline()) == .success else { return }
        var next = 0
        var signalled = false
        while !stopped.load(ordering: .relaxed) {
          let full = store.dispatcher.queueDepth >= 10_000
          if full {
            sched_yield()
          } else {
            store.dispatch(LaneAdd(id: 1_000_000 * (thread + 1) + next), mode: .async)
            next += 1
          }
          // The flood is queued once this thread dispatched 50, or once the queue is full: the
          // other flooder may fill it before this one dispatched 50, and the lane drains nothing
          // until the observer above goes on.
          if !signalled, next == 50 || full {
            signalled = true
            flooded.signal()
          }
        }
      }.start()
    }
    let returned = await returns(within: hangGuardSeconds) { store.dispatch(LaneAdd(id: 0)) }
    stopped.store(true, ordering: .relaxed)
    for _ in 0..<flooders { go.signal() }
    _ = await offPool { flooding.wait(timeout: hangGuardDeadline()) }
    #expect(returned, "a synchronous dispatch went on draining the flood")
    store.dispatch(LaneNoop())
    #expect(store.state.ids.first == 0)
    withExtendedLifetime(starter) {}
  }

  /// Dispatches `LaneAdd(id:)` to its store when it goes.
  final class Boomerang: Sendable {
    let store: Store<LaneLog>
    let id: Int
    init(store: Store<LaneLog>, id: Int) {
      self.store = store
      self.id = id
    }
    deinit { store.dispatch(LaneAdd(id: id)) }
  }

  struct Throw: Action {
    let boomerang: Boomerang
  }

  // Issue 24, defect 4: values the lane lets go of (the actions it processed) dispatch from
  // their deinit, on whichever thread drops them, while several threads dispatch: every
  // dispatch comes back, and nothing waits on a time-out (a hang guard only).
  @Test func valuesTheLaneDropsMayDispatchFromTheirDeinitWhileThreadsContend() async {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let threads = 4
    let perThread = 50
    let finished = await runOnThreads(threads, timeout: hangGuardSeconds) { thread in
      for index in 0..<perThread {
        let id = thread * perThread + index
        store.dispatch(
          Throw(boomerang: Boomerang(store: store, id: id)), mode: index % 2 == 0 ? .sync : .async)
      }
    }
    #expect(finished, "the dispatching threads hung")
    // The last boomerangs come back from the lane's worker, after the threads returned.
    let all = Set(0..<(threads * perThread))
    #expect(await obsEventually { Set(store.state.ids) == all })
  }

  // Defect 12: an action of a class type reaches the handlers of its dynamic type, whether the
  // lane is idle or busy.
  @Test func aClassActionIsRoutedByItsDynamicTypeOnEveryPath() async {
    let store = Store(
      initialState: [String](),
      reducer: Reducer<[String]>()
        .on(BaseMove.self) { state, _ in state.append("base") }
        .on(SideMove.self) { state, _ in state.append("side") })
    let action: BaseMove = SideMove()
    store.dispatch(action)
    store.dispatch(action, mode: .async)
    let lock = store.dispatcher.pause()
    store.dispatch(action)
    lock.release()
    await store.send(action)
    store.dispatch(BaseMove())
    #expect(store.state == ["side", "side", "side", "side", "base"])
  }

  // Defect 8: the queue gives its memory back after a burst.
  @Test func theQueueShrinksAfterABurst() {
    let store = Store(initialState: LaneLog(), reducer: laneLogReducer)
    let lane = store.core.lane
    let lock = store.dispatcher.pause()
    for id in 0..<20_000 { store.dispatch(LaneAdd(id: id), mode: .async) }
    let grown = lane.storage.peek { $0.main.capacity }
    lock.release()
    #expect(store.state.total == 20_000)
    let shrunk = lane.storage.peek { $0.main.capacity }
    #expect(grown >= 20_000)
    #expect(shrunk <= ChunkedQueue<Int>.minimumCapacity)
  }

  // Defect 6: a store made without a dispatcher frees its lane, and everything its state holds,
  // when it goes.
  @Test func aStoreWithoutADispatcherFreesItsLaneAndStateWhenItGoes() async {
    weak var lane: Lane?
    weak var tracked: Tracked?
    do {
      let object = Tracked()
      tracked = object
      let store = Store(initialState: TrackedState(object: object), reducer: trackedReducer)
      lane = store.core.lane
      store.dispatch(Touch())
      store.dispatch(Touch(), mode: .async)
      store.dispatch(Touch())
    }
    #expect(tracked == nil)
    // The worker block the async dispatch scheduled may be running on another thread, holding
    // the lane for the moment it takes to find nothing left to do: the lane goes right after.
    // The test waits for that without holding a thread the worker block may need.
    #expect(await obsEventually { lane == nil })
  }

  // Defect 6: on a shared dispatcher, a dropped store's state goes at once when the lane is
  // idle, and right after the current step when another thread holds the lane.
  @Test func aDroppedStoreOnASharedLaneFreesItsStateWithoutWaitingForAnotherAction() async {
    let dispatcher = Dispatcher()
    let keeper = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    weak var idle: Tracked?
    do {
      let object = Tracked()
      idle = object
      let store = Store(
        initialState: TrackedState(object: object), dispatcher: dispatcher,
        reducer: trackedReducer)
      store.dispatch(Touch())
    }
    #expect(idle == nil)

    let holder = Holder(keeper)
    weak var busy: Tracked?
    do {
      let object = Tracked()
      busy = object
      let store = Store(
        initialState: TrackedState(object: object), dispatcher: dispatcher,
        reducer: trackedReducer)
      _ = store
    }
    holder.release()
    #expect(busy == nil, "the state outlived the step that was running when its store went")
  }
}

/// An action class and a subclass, for routing by dynamic type.
class BaseMove: Action, @unchecked Sendable {
  // @unchecked Sendable: no stored properties.
  init() {}
}

final class SideMove: BaseMove, @unchecked Sendable {}

/// An object whose lifetime the tests watch.
final class Tracked: Sendable {}

struct TrackedState: Sendable {
  let object: Tracked
  var touches = 0
}

struct Touch: Action {}

let trackedReducer = Reducer<TrackedState>().on(Touch.self) { state, _ in state.touches += 1 }
