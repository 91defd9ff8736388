import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// S5: reading `state` never waits for a reducer from inside a reducer, nor once the store is
/// mirrored; it never deadlocks, and never returns a torn value.
@Suite struct StateReadTests {
  /// Satisfies `twice == 2 * count` and `text.count == count % 50` after every step.
  struct Tally: Equatable, Sendable {
    var count = 0
    var twice = 0
    var text = ""
    var seen = 0

    var isConsistent: Bool { twice == 2 * count && text.count == count % 50 }

    mutating func bump() {
      count += 1
      text = String(repeating: "x", count: count % 50)
      twice += 2
    }
  }

  struct Tick: Action {}
  struct ReadOther: Action {}
  struct Hold: Action {}
  struct Meet: Action {}
  struct ReadSelf: Action {}

  /// The store in `box`, read from a reducer of another store.
  static func read(_ box: RegWeak<Store<Tally>>) -> Tally { box.object?.state ?? Tally() }

  @Test func twoStoresOnTwoLanesWhoseReducersReadEachOtherNeverDeadlock() async {
    let log = IssueReporter.collecting()
    let torn = Atomic<Int>(0)
    let leftBox = RegWeak<Store<Tally>>()
    let rightBox = RegWeak<Store<Tally>>()
    func reducer(reading other: RegWeak<Store<Tally>>) -> Reducer<Tally> {
      Reducer<Tally>().on(ReadOther.self) { state, _ in
        let seen = Self.read(other)
        if !seen.isConsistent { torn.add(1, ordering: .relaxed) }
        state.seen = seen.count
        state.bump()
      }
    }
    let left = Store(
      initialState: Tally(), dispatcher: Dispatcher(reporter: log),
      reducer: reducer(reading: rightBox))
    let right = Store(
      initialState: Tally(), dispatcher: Dispatcher(reporter: log),
      reducer: reducer(reading: leftBox))
    leftBox.object = left
    rightBox.object = right

    let started = Atomic<Int>(0)
    let finished = await runOnThreads(2, timeout: hangGuardSeconds) { thread in
      // Both threads dispatch at the same time, so the reducers overlap.
      started.add(1, ordering: .relaxed)
      while started.load(ordering: .relaxed) < 2 { sched_yield() }
      let target = thread == 0 ? left : right
      for _ in 0..<5_000 { target.dispatch(ReadOther()) }
    }

    #expect(finished, "the two lanes deadlocked")
    guard finished else { return }
    #expect(left.state.count == 5_000)
    #expect(right.state.count == 5_000)
    #expect(torn.load(ordering: .relaxed) == 0)
    // At most one read per store gets the initial state, before the store published a state.
    #expect(log.issues.allSatisfy { $0.kind == .stateReadCycle })
    #expect(log.issues.count <= 2)
    #expect(left.core.isMirrored && right.core.isMirrored)
  }

  /// A store whose `Hold` action blocks its reducer until the test lets it go.
  final class HeldStore: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let store: Store<Tally>

    init(dispatcher: Dispatcher? = nil) {
      let entered = entered
      let release = release
      store = Store(
        initialState: Tally(), dispatcher: dispatcher,
        reducer: Reducer<Tally>()
          .on(Tick.self) { state, _ in state.bump() }
          .on(Hold.self) { state, _ in
            let start = state
            state.count = -1  // half-way: never seen by a reader
            entered.signal()
            _ = release.wait(timeout: hangGuardDeadline())
            state = start
            state.bump()
          })
    }

    /// Mirrors the store the way a program does: reads it from a reducer on another lane.
    func warmUp() {
      let store = self.store
      let warmer = Store(
        initialState: Tally(),
        reducer: Reducer<Tally>().on(Tick.self) { state, _ in state.seen = store.state.count })
      warmer.dispatch(Tick())
    }

    /// Reads the state from another thread while a `Hold` step is blocked; `nil` when the read
    /// did not return within `deadline` seconds: it waited for the reducer, which the test
    /// releases only after the read, so a read that waits never returns by itself (a hang guard).
    /// `reading` reads the store (by default, its `state` from outside any reducer).
    func readWhileHeld(
      deadline: Double = hangGuardSeconds, reading: (@Sendable (Store<Tally>) -> Tally)? = nil
    ) async -> Tally? {
      let store = self.store
      let reading = reading ?? { $0.state }
      let holder = ObsThreads(1) { _ in store.dispatch(Hold()) }
      guard await wait(for: entered) else { return nil }
      let read = ObsBox<Tally?>(nil)
      let finished = await obsOnBackgroundThread(timeout: deadline) { read.value = reading(store) }
      release.signal()
      _ = await holder.join()
      return finished ? read.value : nil
    }
  }

  @Test func aReaderGetsTheLastPublishedStateWithoutWaitingForABlockedReducer() async {
    let held = HeldStore()
    held.warmUp()
    held.store.dispatch(Tick())

    let read = await held.readWhileHeld()

    #expect(read != nil, "the read waited for the blocked reducer")
    #expect(read == Tally(count: 1, twice: 2, text: "x"), "the state after the last step")
    #expect(held.store.state.count == 2)
  }

  /// Reads `store` from inside a reducer of a store on another lane; returns what it read.
  static func readFromAReducer(_ store: Store<Tally>) -> Tally {
    let reader = Store(
      initialState: Tally(),
      reducer: Reducer<Tally>().on(ReadOther.self) { state, _ in state = store.state })
    reader.dispatch(ReadOther())
    return reader.state
  }

  @Test func aReducerReadingABusyStoreThatPublishedNothingGetsItsInitialStateWithoutWaiting()
    async
  {
    let log = IssueReporter.collecting()
    let held = HeldStore(dispatcher: Dispatcher(reporter: log))
    held.store.dispatch(Tick())

    let read = await held.readWhileHeld(reading: Self.readFromAReducer)

    #expect(read != nil, "the reducer waited for the blocked reducer")
    #expect(read == Tally(), "the initial state: nothing was published")
    #expect(log.issues.map(\.kind) == [.stateReadCycle])
    #expect(held.store.core.isMirrored)
    #expect(await held.readWhileHeld(reading: Self.readFromAReducer)?.count == 2, "published")
  }

  @Test func aReducerReadingAnIdleStoreOfAnotherLanePublishesItsStateAtOnce() async {
    let held = HeldStore()
    held.store.dispatch(Tick())
    #expect(Self.readFromAReducer(held.store).count == 1)

    let read = await held.readWhileHeld(reading: Self.readFromAReducer)

    #expect(read != nil, "the reducer waited for the blocked reducer")
    #expect(read?.count == 1, "the state the first read published")
  }

  @Test func aStoreFoundBusyIsMirroredAndNoReadWaitsAfterItsNextStep() async {
    let held = HeldStore()
    let store = held.store
    let first = ObsThreads(1) { _ in store.dispatch(Hold()) }
    #expect(await wait(for: held.entered))
    #expect(!store.core.isMirrored)

    // Nothing is published yet: this read waits for the step, and mirrors the store.
    let firstRead = ObsBox<Tally?>(nil)
    let reader = ObsThreads(1) { _ in firstRead.value = store.state }
    #expect(await obsEventually { store.core.isMirrored })
    held.release.signal()
    #expect(await reader.join())
    #expect(await first.join())
    #expect(firstRead.value?.count == 1, "the first read got the state after the step")

    let read = await held.readWhileHeld()

    #expect(read != nil, "the read waited for the blocked reducer")
    #expect(read?.count == 1, "the state after the last step")
    #expect(store.state.count == 2)
  }

  @Test func resetsAndTransactionsOfAMirroredStoreArePublished() async {
    let dispatcher = Dispatcher()
    let held = HeldStore(dispatcher: dispatcher)
    held.warmUp()
    held.store.dispatch(Tick())
    await dispatcher.transaction { tx in try tx.update(held.store) { $0.count = 3 } }
    #expect(await held.readWhileHeld()?.count == 3, "the committed state was published")

    held.store.reset()

    #expect(await held.readWhileHeld() == Tally(), "the reset state was published")
  }

  @Test func aReducerReadingAStoreAnotherThreadHoldsForAReadNeverWaits() async {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher()
    let ticks = Reducer<Tally>().on(Tick.self) { state, _ in state.bump() }
    let near = Store(initialState: Tally(count: 1), dispatcher: dispatcher, reducer: ticks)
    let far = Store(
      initialState: Tally(count: 2), dispatcher: Dispatcher(reporter: log),
      reducer: ticks)
    near.dispatch(Tick())
    far.dispatch(Tick())
    let reader = Store(
      initialState: Tally(), dispatcher: dispatcher,
      reducer: Reducer<Tally>().on(ReadOther.self) { state, _ in
        state.seen = near.state.count * 10 + far.state.count
      })
    // Another thread holds both stores' locks, as a read from outside does while it copies.
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let holder = ObsThreads(1) { _ in
      near.core.lock.lock()
      far.core.lock.lock()
      held.signal()
      _ = release.wait(timeout: hangGuardDeadline())
      far.core.lock.unlock()
      near.core.lock.unlock()
    }
    #expect(await wait(for: held))

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      reader.dispatch(ReadOther())
    }
    release.signal()
    #expect(await holder.join())

    #expect(finished, "the reducer waited for the thread holding a store's lock")
    // The store of its own lane is read without the lock (2); the other lane's gives its
    // initial state (2, not 3: nothing was published).
    #expect(reader.state.seen == 22)
    #expect(log.issues.map(\.kind) == [.stateReadCycle])
  }

  @Test func aReadFromAReducerMirrorsOnlyAStoreOfAnotherLane() {
    let dispatcher = Dispatcher()
    let near = Store(initialState: Tally(), dispatcher: dispatcher)
    let far = Store(initialState: Tally())
    let reader = Store(
      initialState: Tally(), dispatcher: dispatcher,
      reducer: Reducer<Tally>().on(ReadOther.self) { state, _ in
        state.seen = near.state.count + far.state.count
      })
    _ = near.state
    _ = far.state
    #expect(!near.core.isMirrored && !far.core.isMirrored, "reads from outside reducers")

    reader.dispatch(ReadOther())

    #expect(!near.core.isMirrored, "a store on the same lane is never busy for its reducers")
    #expect(far.core.isMirrored)
  }

  @Test func twoReducersReadingEachOthersBusyStoreGetTheInitialStatesWithAReportEach() async {
    let log = IssueReporter.collecting()
    let inLeft = DispatchSemaphore(value: 0)
    let inRight = DispatchSemaphore(value: 0)
    let leftBox = RegWeak<Store<Tally>>()
    let rightBox = RegWeak<Store<Tally>>()
    func reducer(
      reading other: RegWeak<Store<Tally>>, arrive: DispatchSemaphore, meet: DispatchSemaphore
    ) -> Reducer<Tally> {
      Reducer<Tally>()
        .on(Tick.self) { state, _ in state.bump() }
        .on(Meet.self) { state, _ in
          state.bump()
          arrive.signal()
          _ = meet.wait(timeout: hangGuardDeadline())
          state.seen = Self.read(other).count
          // Meet again: each read ran while both reducers held their stores.
          arrive.signal()
          _ = meet.wait(timeout: hangGuardDeadline())
        }
    }
    let left = Store(
      initialState: Tally(), dispatcher: Dispatcher(reporter: log),
      reducer: reducer(reading: rightBox, arrive: inLeft, meet: inRight))
    let right = Store(
      initialState: Tally(), dispatcher: Dispatcher(reporter: log),
      reducer: reducer(reading: leftBox, arrive: inRight, meet: inLeft))
    leftBox.object = left
    rightBox.object = right
    left.dispatch(Tick())
    right.dispatch(Tick())

    // Each reducer holds its store and reads the other, held by the other thread: a cycle.
    let finished = await runOnThreads(2, timeout: hangGuardSeconds) { thread in
      (thread == 0 ? left : right).dispatch(Meet())
    }

    #expect(finished, "the two reducers deadlocked")
    guard finished else { return }
    // Neither read waits: each store's reducer runs and nothing is published, so each read
    // gets the other store's initial state (0), and is reported.
    #expect(left.state.seen == 0)
    #expect(right.state.seen == 0)
    #expect(log.issues.map(\.kind) == [.stateReadCycle, .stateReadCycle])
    #expect(left.core.isMirrored && right.core.isMirrored)
  }

  @Test func readsUnderConcurrentDispatchAreNeverTorn() async {
    let torn = Atomic<Int>(0)
    let store = Store(
      initialState: Tally(), reducer: Reducer<Tally>().on(Tick.self) { state, _ in state.bump() })
    let reader = Store(
      initialState: Tally(),
      reducer: Reducer<Tally>().on(ReadOther.self) { state, _ in
        let seen = store.state
        if !seen.isConsistent { torn.add(1, ordering: .relaxed) }
        state.seen = seen.count
      })
    let finished = await runOnThreads(4) { thread in
      for _ in 0..<3_000 {
        switch thread {
        case 0, 1: store.dispatch(Tick())
        case 2: reader.dispatch(ReadOther())
        default: if !store.state.isConsistent { torn.add(1, ordering: .relaxed) }
        }
      }
    }

    #expect(finished)
    #expect(torn.load(ordering: .relaxed) == 0)
    #expect(store.state.count == 6_000)
    #expect(store.state.isConsistent)
  }

  @Test func readingItsOwnStateInsideAReducerReturnsThePublishedStateWhenThereIsOne() {
    let log = IssueReporter.collecting()
    let itself = RegWeak<Store<Tally>>()
    let store = Store(
      initialState: Tally(), dispatcher: Dispatcher(reporter: log),
      reducer: Reducer<Tally>()
        .on(Tick.self) { state, _ in state.bump() }
        .on(ReadSelf.self) { state, _ in state.seen = Self.read(itself).count })
    itself.object = store
    // Warm-up: a read from inside a reducer of another store mirrors the store.
    let warmer = Store(
      initialState: Tally(),
      reducer: Reducer<Tally>().on(Tick.self) { state, _ in state.seen = store.state.count })
    warmer.dispatch(Tick())
    store.dispatch(Tick())
    store.dispatch(Tick())

    store.dispatch(ReadSelf())

    #expect(store.state.seen == 2, "the state after the last completed step")
    #expect(log.issues.map(\.kind) == [.stateReadInsideReducer])
  }
}
