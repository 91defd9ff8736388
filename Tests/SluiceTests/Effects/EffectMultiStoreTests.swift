import Sluice
import Testing

@Suite struct EffectMultiStoreTests {
  // An effect registered on store A fires for an action dispatched through store B; it sees
  // A's state, and what it dispatches reaches every store on the lane.
  @Test func effectOnOneStoreFiresForAnActionDispatchedThroughAnother() async {
    let dispatcher = Dispatcher()
    let seen = Recorder<Int>()
    let storeA = effStore(
      dispatcher: dispatcher,
      reducer: Reducer<EffState>().on(EffResult.self) { state, action in
        state.results.append(action.value)
      },
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        seen.append(context.state.count)
        context.dispatch(EffResult(value: action.value * 10))
      })
    let storeB = effStore(dispatcher: dispatcher)

    storeB.dispatch(EffTrigger(value: 4))
    await effSettle(storeB)

    #expect(seen.values == [0], "the effect sees its own store's state")
    #expect(storeB.state.count == 1)
    #expect(storeA.state.results == [40])
    #expect(storeB.state.results == [40])
  }

  // Each store's effects run once per action, and settle through any store waits for all.
  @Test func effectsOfEveryStoreRunAndSettleTogether() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let witness = effStore(dispatcher: dispatcher)
    var stores: [Store<EffState>] = []
    for index in 1...3 {
      stores.append(
        effStore(
          dispatcher: dispatcher, reducer: Reducer(),
          effects: Effects<EffState>().on(EffPing.self) { _, context in
            await gates.wait(index)
            context.dispatch(EffResult(value: index))
          }))
    }

    dispatcher.dispatch(EffPing())
    #expect(await effEventually { gates.waitingTotal == 3 })
    for index in 1...3 { gates.open(index) }
    await effSettle(stores[0])

    #expect(witness.state.results.sorted() == [1, 2, 3])
  }

  // Errors of an effect go to its own store's channel and the dispatcher's, not to other stores.
  @Test func effectErrorsGoToTheirStoreAndTheDispatcherOnly() async {
    let dispatcher = Dispatcher()
    let failing = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffFail.self) { action, _ in
        throw EffError(code: action.value)
      })
    let other = effStore(dispatcher: dispatcher)

    other.dispatch(EffFail(value: 3))
    await effSettle(dispatcher)

    #expect(failing.errors.totalCount == 1)
    #expect(dispatcher.errors.totalCount == 1)
    #expect(other.errors.totalCount == 0)
  }
}
