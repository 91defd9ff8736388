import Sluice
import Testing

@Suite struct EffectBasicsTests {
  // An effect starts after the reducer and the synchronous observers, and sees the reduced state.
  @Test func runsAfterReducerAndObserversAndSeesReducedState() async {
    let order = Recorder<String>()
    let reducer = Reducer<EffState>().on(EffTrigger.self) { state, _ in
      order.append("reduce")
      state.count += 1
    }
    let store = effStore(
      reducer: reducer,
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        order.append("effect \(action.value) count=\(context.state.count)")
      })
    let subscription = store.observe(from: .nextChange) { state in
      order.append("observe count=\(state.count)")
    }

    store.dispatch(EffTrigger(value: 7))
    await effSettle(store)

    #expect(order.values == ["reduce", "observe count=1", "effect 7 count=1"])
    subscription.cancel()
  }

  // `context.state` is the state now, not when the effect started.
  @Test func contextStateIsReadLiveAfterEachAwait() async {
    let gates = EffGates()
    let seen = Recorder<Int>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { _, context in
        seen.append(context.state.count)
        await gates.wait()
        seen.append(context.state.count)
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting() == 1 })
    store.dispatch(EffIncrement())
    store.dispatch(EffIncrement())
    gates.open()
    await effSettle(store)

    #expect(seen.values == [1, 3])
  }

  // What an effect dispatches is reduced into the store.
  @Test func dispatchFromAnEffectReachesTheStore() async {
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        context.dispatch(EffResult(value: action.value * 10))
      })

    store.dispatch(EffTrigger(value: 4))
    await effSettle(store)

    #expect(store.state.results == [40])
    #expect(store.effectsInFlight == 0)
  }

  // `context.dispatch` queues and returns at once, even while the lane is paused.
  @Test func contextDispatchQueuesAndNeverBlocks() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let returned = Recorder<String>()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        await gates.wait()
        context.dispatch(EffResult(value: action.value))
        returned.append("dispatch returned")
      })

    store.dispatch(EffTrigger(value: 5))
    #expect(await effEventually { gates.waiting() == 1 })
    let lock = dispatcher.pause()
    gates.open()

    #expect(await effEventually { returned.count == 1 }, "dispatch blocked on the paused lane")
    #expect(store.state.results.isEmpty)
    #expect(dispatcher.queueDepth == 1)

    lock.release()
    await effSettle(store)
    #expect(store.state.results == [5])
  }

  // `await context.send` resumes after the action was reduced.
  @Test func contextSendResumesAfterTheActionWasProcessed() async {
    let seen = Recorder<[Int]>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        await context.send(EffResult(value: action.value))
        seen.append(context.state.results)
        await context.send(EffResult(value: action.value + 1))
        seen.append(context.state.results)
      })

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(seen.values == [[1], [1, 2]])
  }

  // An effect runs for every action of its type, including actions sent with `await send`.
  @Test func runsForEveryActionOfItsTypeOnly() async {
    let runs = Recorder<Int>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { action, _ in runs.append(action.value) })

    store.dispatch(EffTrigger(value: 1))
    store.dispatch(EffIncrement())
    await store.send(EffTrigger(value: 2))
    store.dispatch(EffTrigger(value: 3), mode: .async)
    await effSettle(store)

    #expect(runs.values.sorted() == [1, 2, 3])
  }

  // `addEffects` and `combined(with:)` register more effects; each runs for its own type.
  @Test func addEffectsAndCombinedRegisterEveryEffect() async {
    let runs = Recorder<String>()
    let first = Effects<EffState>().on(EffTrigger.self) { _, _ in runs.append("first") }
    let second = Effects<EffState>()
      .on(EffTrigger.self) { _, _ in runs.append("second") }
      .on(EffPing.self) { _, _ in runs.append("ping") }
    let combined = first.combined(with: second)
    #expect(combined.count == 3)
    let store = effStore(effects: combined)
    let subscription = store.addEffects(
      Effects<EffState>().on(EffTrigger.self) { _, _ in runs.append("added") })

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)
    #expect(runs.values.sorted() == ["added", "first", "second"])

    store.dispatch(EffPing())
    await effSettle(store)
    #expect(runs.values.sorted() == ["added", "first", "ping", "second"])
    subscription.cancel()
  }

  // Dispatcher-level effects see `()` as state, reach stores through the dispatcher, and settle.
  @Test func dispatcherEffectsRunForLaneActions() async {
    let dispatcher = Dispatcher()
    let store = effStore(dispatcher: dispatcher)
    let subscription = dispatcher.addEffects(
      Effects<Void>().on(EffTrigger.self) { action, context in
        context.dispatcher.dispatch(EffResult(value: action.value), mode: .async)
        context.dispatch(EffResult(value: -action.value))
      })

    dispatcher.dispatch(EffTrigger(value: 3))
    await effSettle(dispatcher)

    #expect(store.state.results.sorted() == [-3, 3])
    subscription.cancel()
  }

  // An effect registered on a store fires for actions that store does not reduce.
  @Test func effectsRouteByActionTypeNotByReducer() async {
    let store = effStore(
      reducer: Reducer<EffState>().on(EffResult.self) { state, action in
        state.results.append(action.value)
      },
      effects: Effects<EffState>().on(EffPing.self) { _, context in
        context.dispatch(EffResult(value: 1))
      })

    store.dispatch(EffPing())
    await effSettle(store)

    #expect(store.state.results == [1])
  }
}
