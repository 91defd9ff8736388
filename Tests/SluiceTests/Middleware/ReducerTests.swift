import Sluice
import SluiceTestSupport
import Testing

struct RdCounter: Equatable, Sendable {
  var value = 0
}

struct RdSettings: Equatable, Sendable {
  var title = "untitled"
}

struct RdApp: Equatable, Sendable {
  var counter = RdCounter()
  var settings = RdSettings()
  var trail: [String] = []
}

struct RdIncrement: Action {}
struct RdSet: Action { let value: Int }
struct RdRename: Action { let title: String }
struct RdOther: Action {}

let rdSetReducer = Reducer<RdCounter>().on(RdSet.self) { state, action in
  state.value = action.value
}

@Suite("Reducers")
struct ReducerTests {
  @Test func reduceAppliesTheMatchingHandlersInOrderWithoutAStore() {
    let reducer = Reducer<RdApp>()
      .on(RdSet.self) { state, action in state.trail.append("set \(action.value)") }
      .combined(with: Reducer { state, action in state.trail.append("any \(type(of: action))") })
      .combined(with: rdSetReducer.scoped(to: \RdApp.counter))
    var state = RdApp()
    reducer.reduce(&state, RdSet(value: 7))
    #expect(state.trail == ["set 7", "any RdSet"])
    #expect(state.counter.value == 7)
    // An existential is opened: its dynamic type picks the typed handlers.
    let action: any Action = RdSet(value: 9)
    reducer.reduce(&state, action)
    #expect(state.counter.value == 9)
    reducer.reduce(&state, RdOther())
    #expect(state.trail == ["set 7", "any RdSet", "set 9", "any RdSet", "any RdOther"])
    #expect(state.counter.value == 9)
  }

  @Test func typedHandlersReceiveTheirOwnActionType() {
    let reducer = Reducer<RdCounter>()
      .on(RdIncrement.self) { state, _ in state.value += 1 }
      .on(RdSet.self) { state, action in state.value = action.value }
    let store = Store(initialState: RdCounter(), reducer: reducer)

    store.dispatch(RdSet(value: 41))
    store.dispatch(RdIncrement())
    store.dispatch(RdOther())

    #expect(store.state.value == 42)
  }

  @Test func aCatchAllReducerSeesEveryActionUnicoreStyle() {
    let reducer = Reducer<RdApp> { state, action in
      switch action {
      case let set as RdSet: state.counter.value = set.value
      case is RdIncrement: state.counter.value += 1
      case let rename as RdRename: state.settings.title = rename.title
      default: state.trail.append("ignored \(type(of: action))")
      }
    }
    let store = Store(initialState: RdApp(), reducer: reducer)

    store.dispatch(RdSet(value: 9))
    store.dispatch(RdIncrement())
    store.dispatch(RdRename(title: "Sluice"))
    store.dispatch(RdOther())

    #expect(
      store.state
        == RdApp(
          counter: RdCounter(value: 10), settings: RdSettings(title: "Sluice"),
          trail: ["ignored RdOther"]))
  }

  @Test func severalHandlersForOneTypeRunInTheOrderTheyWereAdded() {
    let reducer = Reducer<RdApp>()
      .on(RdIncrement.self) { state, _ in state.trail.append("first") }
      .on(RdSet.self) { state, _ in state.trail.append("set") }
      .on(RdIncrement.self) { state, _ in state.trail.append("second") }
    let store = Store(initialState: RdApp(), reducer: reducer)

    store.dispatch(RdIncrement())

    #expect(store.state.trail == ["first", "second"])
  }

  @Test func combineRunsTheHandlersOfEachReducerInTheOrderGiven() {
    let first = Reducer<RdApp>().on(RdIncrement.self) { state, _ in state.trail.append("first") }
    let everything = Reducer<RdApp> { state, action in
      state.trail.append("catch-all \(type(of: action))")
    }
    let second = Reducer<RdApp>().on(RdIncrement.self) { state, _ in state.trail.append("second") }
    let store = Store(
      initialState: RdApp(), reducer: Reducer.combine(first, everything, second))

    store.dispatch(RdIncrement())
    store.dispatch(RdOther())

    #expect(
      store.state.trail == ["first", "catch-all RdIncrement", "second", "catch-all RdOther"])
  }

  @Test func combinedWithAppendsTheOtherReducersHandlers() {
    let counting = Reducer<RdCounter>().on(RdIncrement.self) { state, _ in state.value += 1 }
    let doubling = Reducer<RdCounter>().on(RdIncrement.self) { state, _ in state.value *= 2 }
    let store = Store(initialState: RdCounter(value: 1), reducer: counting.combined(with: doubling))

    store.dispatch(RdIncrement())

    #expect(store.state.value == 4, "(1 + 1) × 2: counting ran first")
  }

  @Test func scopedLiftsAReducerToAPartOfALargerState() {
    let counterReducer = Reducer<RdCounter>()
      .on(RdIncrement.self) { state, _ in state.value += 1 }
      .on(RdSet.self) { state, action in state.value = action.value }
    let settingsReducer = Reducer<RdSettings> { state, action in
      if let rename = action as? RdRename { state.title = rename.title }
    }
    let app = Reducer<RdApp>.combine(
      counterReducer.scoped(to: \RdApp.counter),
      settingsReducer.scoped(to: \RdApp.settings))
    let store = Store(initialState: RdApp(), reducer: app)
    let titles = MwLog<String>()
    let subscription = store.observe(\.settings.title, from: .nextChange) { titles.append($0.new) }

    store.dispatch(RdSet(value: 5))
    store.dispatch(RdIncrement())
    store.dispatch(RdRename(title: "scoped"))

    #expect(store.state.counter.value == 6)
    #expect(store.state.settings.title == "scoped")
    #expect(titles.all == ["scoped"], "counter actions do not touch the settings")
    subscription.cancel()
  }

  @Test func resetReturnsToTheInitialStateAndIsObservedLikeAChange() {
    let store = Store(initialState: RdCounter(value: 1), reducer: rdSetReducer)
    let changes = MwLog<Change<Int>>()
    let states = MwLog<RdCounter>()
    let byPath = store.observe(\.value, from: .nextChange) { changes.append($0) }
    let whole = store.observe(from: .nextChange) { states.append($0) }

    store.dispatch(RdSet(value: 5))
    store.reset()

    #expect(store.state == RdCounter(value: 1))
    #expect(changes.all == [Change(old: 1, new: 5), Change(old: 5, new: 1)])
    #expect(states.all == [RdCounter(value: 5), RdCounter(value: 1)])
    byPath.cancel()
    whole.cancel()
  }

  @Test func resetOfAStoreInItsInitialStateNotifiesNobody() {
    let store = Store(initialState: RdCounter(), reducer: rdSetReducer)
    let calls = MwLog<String>()
    let byPath = store.observe(\.value, from: .nextChange) { _ in calls.append("path") }
    let whole = store.observe(from: .nextChange) { _ in calls.append("whole") }

    store.reset()

    #expect(calls.all.isEmpty)
    byPath.cancel()
    whole.cancel()
  }

  @Test func resetFromAnObserverIsQueuedLikeADispatchFromInsideTheLane() {
    // `reset()` is "observed like any change" and "synchronous like dispatch": from inside the
    // lane it must run after the current notification round, so that every observer sees the
    // changes in lane order — 0 → 5, then 5 → 0 — and none is skipped.
    let store = Store(initialState: RdCounter(), reducer: rdSetReducer)
    let first = MwLog<Change<Int>>()
    let second = MwLog<Change<Int>>()
    let resetter = store.observe(\.value, from: .nextChange) { [weak store] change in
      first.append(change)
      if change.new == 5 { store?.reset() }
    }
    let witness = store.observe(\.value, from: .nextChange) { second.append($0) }

    store.dispatch(RdSet(value: 5))

    #expect(store.state.value == 0)
    #expect(first.all == [Change(old: 0, new: 5), Change(old: 5, new: 0)])
    #expect(second.all == [Change(old: 0, new: 5), Change(old: 5, new: 0)])
    resetter.cancel()
    witness.cancel()
  }

  @Test func resetFromInsideAReducerDoesNotDeadlock() async {
    // Misuse, but dispatch never deadlocks from inside the lane, and neither may reset: it is
    // expected to run after the current action, like a dispatch from inside the lane. The
    // dispatch runs on its own thread, so that a deadlock fails this test instead of hanging it.
    let itself = RegWeak<Store<RdCounter>>()
    let store = Store(
      initialState: RdCounter(),
      reducer: Reducer<RdCounter>().on(RdSet.self) { state, action in
        state.value = action.value
        itself.object?.reset()
      })
    itself.object = store

    let finished = await mwFinishes(within: .seconds(Int(hangGuardSeconds))) {
      store.dispatch(RdSet(value: 5))
    }

    guard finished else {
      // Reading `store.state` now would block on the deadlocked reducer's lock too.
      Testing.Issue.record("store.reset() inside a reducer deadlocked the dispatch")
      return
    }
    #expect(store.state == RdCounter(), "the reset ran after the action")
  }

  @Test func aStoreWithANonEquatableStateNotifiesOnEveryActionItHandles() {
    struct Bag: Sendable { var items: [Int] = [] }
    let reducer = Reducer<Bag>().on(RdSet.self) { state, action in
      if !state.items.contains(action.value) { state.items.append(action.value) }
    }
    let store = Store(initialState: Bag(), reducer: reducer)
    let seen = MwLog<[Int]>()
    let subscription = store.observe(from: .nextChange) { seen.append($0.items) }

    store.dispatch(RdSet(value: 1))
    store.dispatch(RdSet(value: 1))
    store.dispatch(RdOther())

    #expect(seen.all == [[1], [1]], "handled actions notify; an unhandled one does not")
    subscription.cancel()
  }
}
