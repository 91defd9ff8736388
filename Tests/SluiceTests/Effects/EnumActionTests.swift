import Foundation
import Sluice
import SluiceTestSupport
import Testing

// Actions written as one enum, each case handled once by `Reducer.on`, its reducer code and its
// effect side by side. Names start with `En` so they cannot clash with other test folders.

struct EnState: Equatable, Sendable {
  var query = ""
  var items: [String] = []
  var clears = 0
  var count = 0
}

enum EnAction: Action, Equatable {
  case queryChanged(String)
  case resultsLoaded([String])
  case cleared
  /// No handler takes it.
  case ignored(Int)

  var queryChanged: String? { if case .queryChanged(let text) = self { text } else { nil } }
  var resultsLoaded: [String]? { if case .resultsLoaded(let items) = self { items } else { nil } }
}

/// Stops the search effects (by id).
struct EnStop: Action {}

/// What the effects saw, and a stream telling the test when one started (so it waits for an
/// event, never for time).
final class EnProbe: Sendable {
  let calls = Recorder<String>()
  let started: AsyncStream<String>
  private let startedInput: AsyncStream<String>.Continuation

  init() { (started, startedInput) = AsyncStream.makeStream(of: String.self) }

  func record(_ call: String) {
    calls.append(call)
    startedInput.yield(call)
  }

  /// The next effect start recorded.
  func nextStart() async -> String? {
    var iterator = started.makeAsyncIterator()
    return await iterator.next()
  }

  func count(_ call: String) -> Int { calls.values.count { $0 == call } }
}

/// The search feature: each case once, with its effect.
func enReducer(
  _ probe: EnProbe, policy: EffectPolicy = .every, id: EffectID? = nil, gates: EffGates? = nil
) -> Reducer<EnState> {
  Reducer<EnState>()
    .on(\EnAction.queryChanged, policy: policy, id: id) { state, text in
      probe.calls.append("reduce query \(text)")
      state.query = text
    } effect: { text, context in
      probe.record("effect query \(text)")
      if let gates { try await gates.waitOrCancel(text.count) }
      context.dispatch(EnAction.resultsLoaded(["\(text)!"]))
    }
    .on(\EnAction.resultsLoaded) { state, items in
      probe.calls.append("reduce results \(items)")
      state.items = items
    }
    .on(EnAction.cleared) { state in
      probe.calls.append("reduce cleared")
      state.clears += 1
      state.query = ""
    } effect: { _ in
      probe.record("effect cleared")
    }
}

@Suite struct EnumActionTests {
  @Test func eachCaseReachesItsReducerAndItsEffectOnce() async {
    let probe = EnProbe()
    let store = Store(initialState: EnState(), reducer: enReducer(probe))

    store.dispatch(EnAction.queryChanged("swift"))
    await effSettle(store)

    #expect(store.state == EnState(query: "swift", items: ["swift!"]))
    #expect(
      probe.calls.values == [
        "reduce query swift", "effect query swift", "reduce results [\"swift!\"]",
      ], "the effect's follow-up reached the results case")

    store.dispatch(EnAction.cleared)
    await effSettle(store)
    #expect(store.state.clears == 1)
    #expect(store.state.query == "")
    #expect(probe.count("reduce cleared") == 1)
    #expect(probe.count("effect cleared") == 1)
    #expect(probe.count("reduce query swift") == 1)
    #expect(probe.count("effect query swift") == 1)
  }

  @Test func aCaseNoHandlerTakesChangesNothingAndStartsNoEffect() async {
    let probe = EnProbe()
    let store = Store(initialState: EnState(), reducer: enReducer(probe))

    store.dispatch(EnAction.ignored(7))
    await effSettle(store)

    #expect(store.state == EnState())
    #expect(probe.calls.values.isEmpty)
    #expect(store.effectsInFlight == 0)
  }

  @Test func reduceWithoutAStoreAppliesTheCaseHandlers() {
    let probe = EnProbe()
    let reducer = enReducer(probe)
    var state = EnState()
    reducer.reduce(&state, EnAction.queryChanged("a"))
    reducer.reduce(&state, EnAction.resultsLoaded(["b"]))
    reducer.reduce(&state, EnAction.cleared)
    reducer.reduce(&state, EnAction.ignored(1))
    #expect(state == EnState(query: "", items: ["b"], clears: 1))
    #expect(probe.calls.values == ["reduce query a", "reduce results [\"b\"]", "reduce cleared"])
  }

  @Test func enumCasesAndTypeRoutedActionsShareAStore() async {
    let probe = EnProbe()
    let reducer = enReducer(probe)
      .on(EffIncrement.self) { state, _ in
        state.count += 1
      } effect: { _, context in
        probe.record("effect increment")
        context.dispatch(EnAction.queryChanged("from increment"))
      }
    let effects = Effects<EnState>().on(EnStop.self) { _, _ in probe.record("effect stop") }
    let store = Store(initialState: EnState(), reducer: reducer, effects: effects)

    store.dispatch(EffIncrement())
    await effSettle(store)
    store.dispatch(EnStop())
    await effSettle(store)

    #expect(store.state.count == 1)
    #expect(store.state.query == "from increment")
    #expect(store.state.items == ["from increment!"])
    #expect(probe.count("effect increment") == 1)
    #expect(probe.count("effect query from increment") == 1)
    #expect(probe.count("effect stop") == 1)
  }

  // The policy of a case's effect counts the actions of that case only: another case of the
  // same enum does not cancel a `.latest` run.
  @Test func anotherCaseDoesNotCancelALatestRun() async {
    let probe = EnProbe()
    let gates = EffGates()
    let store = Store(
      initialState: EnState(), reducer: enReducer(probe, policy: .latest, gates: gates))

    store.dispatch(EnAction.queryChanged("a"))
    #expect(await probe.nextStart() == "effect query a")
    store.dispatch(EnAction.ignored(1))
    store.dispatch(EnAction.resultsLoaded(["x"]))
    gates.open(1)
    await effSettle(store)
    #expect(store.state.items == ["a!"], "the run of `a` was not cancelled by other cases")

    // The same case does cancel it.
    store.dispatch(EnAction.queryChanged("bb"))
    #expect(await probe.nextStart() == "effect query bb")
    store.dispatch(EnAction.queryChanged("ccc"))
    #expect(await probe.nextStart() == "effect query ccc")
    gates.open(2)
    gates.open(3)
    await effSettle(store)
    #expect(store.state.items == ["ccc!"])
  }

  @Test func anotherCaseDoesNotCountForDropWhileRunning() async {
    let probe = EnProbe()
    let gates = EffGates()
    let reducer = enReducer(probe, policy: .dropWhileRunning, gates: gates)
    let store = Store(initialState: EnState(), reducer: reducer)

    store.dispatch(EnAction.queryChanged("a"))
    #expect(await probe.nextStart() == "effect query a")
    store.dispatch(EnAction.queryChanged("b"))  // dropped: `a` runs
    store.dispatch(EnAction.cleared)  // another case: runs
    #expect(await probe.nextStart() == "effect cleared")
    gates.open(1)
    await effSettle(store)
    #expect(probe.count("effect query b") == 0)
    #expect(store.state.items == ["a!"])
  }

  @Test func aCaseEffectIsCancelledByItsIDAndByAnAction() async {
    let probe = EnProbe()
    let gates = EffGates()
    let search: EffectID = "search"
    let store = Store(
      initialState: EnState(), reducer: enReducer(probe, id: search, gates: gates),
      effects: Effects<EnState>().cancel(search, on: EnStop.self))

    store.dispatch(EnAction.queryChanged("a"))
    #expect(await probe.nextStart() == "effect query a")
    store.cancelEffects(id: search)
    await effSettle(store)
    #expect(store.state.items.isEmpty, "the cancelled run dispatched nothing")

    store.dispatch(EnAction.queryChanged("bb"))
    #expect(await probe.nextStart() == "effect query bb")
    store.dispatch(EnStop())
    await effSettle(store)
    #expect(store.state.items.isEmpty)
    #expect(store.state.query == "bb")
  }

  // A case's effect follows the store's middleware, as a type's does: a replaced action starts
  // the effects of its replacement's case, not those of the original's.
  @Test func aCaseEffectFollowsTheMiddleware() async {
    let probe = EnProbe()
    let censor = Middleware<EnState>.intercept { action, _ in
      action as? EnAction == .queryChanged("secret") ? .replace(EnAction.cleared) : .proceed
    }
    let store = Store(initialState: EnState(), reducer: enReducer(probe), middleware: [censor])

    store.dispatch(EnAction.queryChanged("secret"))
    await effSettle(store)

    #expect(store.state == EnState(clears: 1))
    #expect(probe.calls.values == ["reduce cleared", "effect cleared"])
  }

  // Cases reduced in a transaction start their effects when it commits; an aborted one starts
  // none.
  @Test func aCaseEffectStartsWhenItsTransactionCommits() async {
    let probe = EnProbe()
    let dispatcher = Dispatcher(label: "enum.transaction")
    let store = Store(initialState: EnState(), dispatcher: dispatcher, reducer: enReducer(probe))

    await dispatcher.transaction { tx in
      tx.dispatch(EnAction.queryChanged("kept"))
      try tx.abort()
    }
    await effSettle(store)
    #expect(store.state == EnState())
    #expect(probe.count("effect query kept") == 0)

    await dispatcher.transaction { tx in tx.dispatch(EnAction.queryChanged("t")) }
    await effSettle(store)
    #expect(store.state == EnState(query: "t", items: ["t!"]))
    #expect(probe.count("effect query t") == 1)
  }

  @Test func aCaseEffectEndsWithItsStore() async {
    let probe = EnProbe()
    let gates = EffGates()
    let dispatcher = Dispatcher(label: "enum.lifetime")
    var store: Store<EnState>? = Store(
      initialState: EnState(), dispatcher: dispatcher, reducer: enReducer(probe, gates: gates))
    store?.dispatch(EnAction.queryChanged("a"))
    #expect(await probe.nextStart() == "effect query a")
    store = nil
    await effSettle(dispatcher)
    #expect(dispatcher.effectsInFlight == 0)
  }

  @Test func aScopedReducersCaseEffectsReadTheirPart() async {
    struct Parent: Equatable, Sendable {
      var search = EnState()
      var seen: [String] = []
    }
    struct Seen: Action { let query: String }
    let reducer = Reducer<EnState>()
      .on(\EnAction.queryChanged) { state, text in
        state.query = text
      } effect: { _, context in
        context.dispatch(Seen(query: context.state.query))
      }
    let parent = Reducer<Parent>.combine(
      reducer.scoped(to: \Parent.search),
      Reducer<Parent>().on(Seen.self) { state, action in state.seen.append(action.query) })
    let store = Store(initialState: Parent(), reducer: parent)

    store.dispatch(EnAction.queryChanged("q"))
    await effSettle(store)
    #expect(store.state.seen == ["q"])
  }

  @Test func aRegisteredStoreRunsItsReducersEffects() async {
    struct Registered: StoreDefinition, Equatable {
      var query = ""
      var items: [String] = []
      static let initialState = Registered()
      static let reducer = Reducer<Registered>()
        .on(\EnAction.queryChanged) { state, text in
          state.query = text
        } effect: {
          text, context in
          context.dispatch(EnAction.resultsLoaded([text]))
        }
        .on(\EnAction.resultsLoaded) { state, items in state.items = items }
    }
    let dispatcher = Dispatcher(label: "enum.registered")
    let store = dispatcher.register(Registered.self)
    store.dispatch(EnAction.queryChanged("r"))
    await effSettle(store)
    #expect(store.state == Registered(query: "r", items: ["r"]))
  }
}
