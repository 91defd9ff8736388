import Sluice
import Testing

/// A middleware that drops every `EffTrigger`.
let effDropsTriggers = Middleware<EffState>.intercept { action, _ in
  action is EffTrigger ? .drop : .proceed
}

/// A middleware that reduces `EffResult(value: trigger.value)` in place of every `EffTrigger`.
let effTriggersBecomeResults = Middleware<EffState>.intercept { action, _ in
  guard let trigger = action as? EffTrigger else { return .proceed }
  return .replace(EffResult(value: trigger.value))
}

/// Effects follow what a store's middleware made of an action: a dropped action starts none of
/// the store's effects, a replaced one starts the effects of its replacement.
@Suite struct EffectMiddlewareTests {
  @Test func aDroppedActionStartsNoneOfTheStoresEffects() async {
    let started = Recorder<String>()
    let store = Store(
      initialState: EffState(), reducer: effReducer, middleware: [effDropsTriggers],
      effects: Effects<EffState>().on(EffTrigger.self) { _, _ in started.append("init") })
    let added = store.addEffects(
      Effects<EffState>().on(EffTrigger.self) { _, _ in started.append("added") })

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(store.state.count == 0)
    #expect(started.values.isEmpty)
    store.dispatch(EffIncrement())
    #expect(store.state.count == 1, "other actions still pass")
    added.cancel()
  }

  @Test func aDroppedActionStartsNoDispatcherEffectWhenNoStoreReducedIt() async {
    let started = Recorder<String>()
    let store = Store(
      initialState: EffState(), reducer: effReducer, middleware: [effDropsTriggers])
    store.dispatcher.addEffects(
      Effects<Void>().on(EffTrigger.self) { _, _ in started.append("dispatcher") })

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(started.values.isEmpty)
  }

  @Test func anActionDroppedByOneStoreAndReducedByAnotherStartsTheOthersAndTheLanesEffects()
    async
  {
    let dispatcher = Dispatcher()
    let started = Recorder<String>()
    let dropping = Store(
      initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
      middleware: [effDropsTriggers],
      effects: Effects<EffState>().on(EffTrigger.self) { _, _ in started.append("dropping") })
    let reducing = Store(
      initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
      effects: Effects<EffState>().on(EffTrigger.self) { _, _ in started.append("reducing") })
    dispatcher.addEffects(
      Effects<Void>().on(EffTrigger.self) { _, _ in started.append("dispatcher") })

    dispatcher.dispatch(EffTrigger(value: 1))
    await effSettle(dispatcher)

    #expect(dropping.state.count == 0)
    #expect(reducing.state.count == 1)
    #expect(started.values.sorted() == ["dispatcher", "reducing"])
  }

  @Test func aReplacedActionStartsTheEffectsOfItsReplacement() async {
    let started = Recorder<String>()
    let store = Store(
      initialState: EffState(), reducer: effReducer, middleware: [effTriggersBecomeResults],
      effects: Effects<EffState>()
        .on(EffTrigger.self) { action, _ in started.append("trigger \(action.value)") }
        .on(EffResult.self) { action, _ in started.append("result \(action.value)") })
    let lane = Recorder<String>()
    store.dispatcher.addEffects(
      Effects<Void>()
        .on(EffTrigger.self) { action, _ in lane.append("trigger \(action.value)") }
        .on(EffResult.self) { action, _ in lane.append("result \(action.value)") })

    store.dispatch(EffTrigger(value: 7))
    await effSettle(store)

    #expect(store.state.results == [7])
    #expect(started.values == ["result 7"], "the store's effects follow what it reduced")
    #expect(lane.values == ["trigger 7"], "the lane's effects follow what was dispatched")
  }

  @Test func aDroppedErrorCarryingActionIsNotReported() async {
    let store = Store(
      initialState: EffState(), reducer: effReducer,
      middleware: [.intercept { action, _ in action is EffCarry ? .drop : .proceed }])

    store.dispatch(EffCarry(value: 1, error: EffError(code: 1)))

    #expect(store.state.results.isEmpty)
    #expect(store.errors.totalCount == 0)
    #expect(store.dispatcher.errors.totalCount == 0)
  }

  @Test func effectsStartAgainOnceTheDroppingMiddlewareIsRemoved() async {
    let started = Recorder<Int>()
    let store = Store(
      initialState: EffState(), reducer: effReducer,
      effects: Effects<EffState>().on(EffPing.self) { _, _ in started.append(0) })
    let dropping = store.use(.intercept { action, _ in action is EffPing ? .drop : .proceed })

    store.dispatch(EffPing())
    dropping.cancel()
    store.dispatch(EffPing())
    await effSettle(store)

    #expect(started.values == [0])
  }

  @Test func anActionDispatchedInATransactionStartsItsEffectsWhateverMiddlewareDroppedBefore()
    async
  {
    let started = Recorder<Int>()
    let store = Store(
      initialState: EffState(), reducer: effReducer, middleware: [effDropsTriggers],
      effects: Effects<EffState>().on(EffTrigger.self) { action, _ in started.append(action.value) }
    )

    store.dispatch(EffTrigger(value: 1))
    // Middleware does not see the actions of a transaction (it sees the committed transaction).
    await store.dispatcher.transaction { tx in tx.dispatch(EffTrigger(value: 2)) }
    await effSettle(store)

    #expect(started.values == [2])
    #expect(store.state.count == 1)
  }
}
