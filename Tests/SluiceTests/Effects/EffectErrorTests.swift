import Sluice
import Testing

@Suite struct EffectErrorTests {
  private func failingStore(dispatcher: Dispatcher? = nil, runs: Recorder<Int>) -> Store<EffState> {
    effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffFail.self) { action, _ in
        runs.append(action.value)
        throw EffError(code: action.value)
      })
  }

  // An effect that throws reports an ErrorEvent on the store's and the dispatcher's channels,
  // with its source and the triggering action.
  @Test func thrownErrorIsReportedOnStoreAndDispatcher() async {
    let dispatcher = Dispatcher()
    let store = failingStore(dispatcher: dispatcher, runs: Recorder())

    store.dispatch(EffFail(value: 7))
    await effSettle(store)

    for channel in [store.errors, dispatcher.errors] {
      #expect(channel.totalCount == 1)
      #expect(channel.recent.count == 1)
      let event = channel.last
      #expect((event?.error as? EffError) == EffError(code: 7))
      #expect(event?.source == .effect(actionType: "EffFail"))
      #expect((event?.action as? EffFail)?.value == 7)
    }
    #expect(store.errors.last?.description == "effect on EffFail: \(EffError(code: 7))")
  }

  // Observers of a channel get every event, until cancelled.
  @Test func observersReceiveEventsUntilCancelled() async {
    let dispatcher = Dispatcher()
    let store = failingStore(dispatcher: dispatcher, runs: Recorder())
    let fromStore = Recorder<Int>()
    let fromDispatcher = Recorder<Int>()
    let storeSubscription = store.errors.observe { event in
      fromStore.append((event.error as? EffError)?.code ?? -1)
    }
    let dispatcherSubscription = dispatcher.errors.observe { event in
      fromDispatcher.append((event.error as? EffError)?.code ?? -1)
    }

    store.dispatch(EffFail(value: 1))
    await effSettle(store)
    storeSubscription.cancel()
    store.dispatch(EffFail(value: 2))
    await effSettle(store)

    #expect(fromStore.values == [1])
    #expect(fromDispatcher.values == [1, 2])
    dispatcherSubscription.cancel()
  }

  // The `events` stream yields the events reported after it was made.
  @Test func eventsStreamYieldsReportedErrors() async {
    let dispatcher = Dispatcher()
    let store = failingStore(dispatcher: dispatcher, runs: Recorder())
    let received = Recorder<String>()
    let storeEvents = store.errors.events
    let dispatcherEvents = dispatcher.errors.events
    let consumer = Task {
      for await event in storeEvents { received.append("store \(event.source)") }
    }
    let dispatcherConsumer = Task {
      for await event in dispatcherEvents { received.append("dispatcher \(event.source)") }
    }

    store.dispatch(EffFail(value: 1))
    #expect(await effEventually { received.count == 2 })
    #expect(
      received.values.sorted() == ["dispatcher effect on EffFail", "store effect on EffFail"])
    consumer.cancel()
    dispatcherConsumer.cancel()
  }

  // An effect that throws every time runs once per action: the error is not re-dispatched.
  @Test func aFailingEffectIsNotReRun() async {
    let runs = Recorder<Int>()
    let store = failingStore(runs: runs)

    store.dispatch(EffFail(value: 1))
    await effSettle(store)
    #expect(runs.values == [1])
    #expect(store.errors.totalCount == 1)
    #expect(store.state.count == 1, "nothing was re-dispatched")

    store.dispatch(EffFail(value: 2))
    await effSettle(store)
    #expect(runs.values == [1, 2])
    #expect(store.errors.totalCount == 2)
    #expect(store.state.count == 2)
  }

  // CancellationError thrown by an effect is not an error to report.
  @Test func cancellationErrorIsNotReported() async {
    let dispatcher = Dispatcher()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffTrigger.self) { _, _ in throw CancellationError() })

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(store.errors.totalCount == 0)
    #expect(dispatcher.errors.totalCount == 0)
  }

  // An error thrown after the effect was cancelled is not reported.
  @Test func errorThrownAfterCancellationIsNotReported() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffFail.self, id: "fail") { action, _ in
        await gates.wait()
        throw EffError(code: action.value)
      })

    store.dispatch(EffFail(value: 1))
    #expect(await effEventually { gates.waiting() == 1 })
    store.cancelEffects(id: "fail")
    gates.open()
    await effSettle(store)

    #expect(store.errors.totalCount == 0)
    #expect(dispatcher.errors.totalCount == 0)
  }

  // `context.report` reports without ending the effect.
  @Test func contextReportDoesNotEndTheEffect() async {
    let dispatcher = Dispatcher()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        context.report(EffError(code: action.value))
        context.dispatch(EffResult(value: action.value))
      })

    store.dispatch(EffTrigger(value: 3))
    await effSettle(store)

    #expect(store.state.results == [3])
    for channel in [store.errors, dispatcher.errors] {
      #expect(channel.totalCount == 1)
      #expect((channel.last?.error as? EffError) == EffError(code: 3))
      #expect(channel.last?.source == .effect(actionType: "EffTrigger"))
      #expect((channel.last?.action as? EffTrigger)?.value == 3)
    }
  }

  // Errors of dispatcher-level effects go to the dispatcher's channel only.
  @Test func dispatcherEffectErrorsGoToTheDispatcherChannel() async {
    let dispatcher = Dispatcher()
    let store = effStore(dispatcher: dispatcher)
    let subscription = dispatcher.addEffects(
      Effects<Void>().on(EffFail.self) { action, _ in throw EffError(code: action.value) })

    store.dispatch(EffFail(value: 4))
    await effSettle(dispatcher)

    #expect(dispatcher.errors.totalCount == 1)
    #expect(dispatcher.errors.last?.source == .effect(actionType: "EffFail"))
    #expect(store.errors.totalCount == 0)
    subscription.cancel()
  }

  // A channel keeps its latest `capacity` events; `totalCount` counts all; `clear` forgets.
  @Test func channelKeepsTheLatestEventsAndCountsAll() async {
    let total = 60
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { _, context in
        for code in 1...total { context.report(EffError(code: code)) }
      })

    store.dispatch(EffTrigger(value: 0))
    await effSettle(store)

    let capacity = store.errors.capacity
    #expect(capacity < total)
    #expect(store.errors.totalCount == total)
    #expect(store.errors.recent.count == capacity)
    #expect((store.errors.recent.first?.error as? EffError)?.code == total - capacity + 1)
    #expect((store.errors.last?.error as? EffError)?.code == total)

    store.errors.clear()
    #expect(store.errors.recent.isEmpty)
    #expect(store.errors.last == nil)
    #expect(store.errors.totalCount == total)
  }
}

@Suite struct EffectErrorCarryingTests {
  // A non-nil error carried by an action is reported on the handling store's channel and the
  // dispatcher's, and the reducer still runs; a store that does not handle it gets nothing.
  @Test func carriedErrorIsReportedAndTheActionIsStillReduced() {
    let dispatcher = Dispatcher()
    let handler = effStore(dispatcher: dispatcher)
    let bystander = effStore(
      dispatcher: dispatcher,
      reducer: Reducer<EffState>().on(EffIncrement.self) { state, _ in state.count += 1 })

    handler.dispatch(EffCarry(value: 3, error: EffError(code: 42)))

    #expect(handler.state.results == [3])
    for channel in [handler.errors, dispatcher.errors] {
      #expect(channel.totalCount == 1)
      #expect((channel.last?.error as? EffError) == EffError(code: 42))
      #expect(channel.last?.source == .action("EffCarry"))
      #expect((channel.last?.action as? EffCarry)?.value == 3)
    }
    #expect(bystander.errors.totalCount == 0)
  }

  // A nil error reports nothing; the action is reduced as usual.
  @Test func nilErrorReportsNothing() {
    let dispatcher = Dispatcher()
    let store = effStore(dispatcher: dispatcher)

    store.dispatch(EffCarry(value: 1, error: nil))

    #expect(store.state.results == [1])
    #expect(store.errors.totalCount == 0)
    #expect(dispatcher.errors.totalCount == 0)
  }

  // An error-carrying action no store handles still reaches the dispatcher's channel.
  @Test func unhandledCarriedErrorReachesTheDispatcherOnly() {
    let dispatcher = Dispatcher()
    let store = effStore(
      dispatcher: dispatcher,
      reducer: Reducer<EffState>().on(EffIncrement.self) { state, _ in state.count += 1 })

    dispatcher.dispatch(EffCarry(value: 1, error: EffError(code: 5)))

    #expect(dispatcher.errors.totalCount == 1)
    #expect(store.errors.totalCount == 0)
  }

  // Every store that handles the action gets the error, once per dispatch.
  @Test func everyHandlingStoreGetsTheCarriedError() {
    let dispatcher = Dispatcher()
    let first = effStore(dispatcher: dispatcher)
    let second = effStore(dispatcher: dispatcher)
    let received = Recorder<Int>()
    let subscription = dispatcher.errors.observe { event in
      received.append((event.error as? EffError)?.code ?? -1)
    }

    dispatcher.dispatch(EffCarry(value: 1, error: EffError(code: 1)))
    dispatcher.dispatch(EffCarry(value: 2, error: nil))
    dispatcher.dispatch(EffCarry(value: 3, error: EffError(code: 3)))

    #expect(first.errors.totalCount == 2)
    #expect(second.errors.totalCount == 2)
    #expect(received.values == [1, 3], "the dispatcher hears each error once")
    #expect(first.state.results == [1, 2, 3])
    subscription.cancel()
  }

  // A store whose catch-all reducer sees the action handles it, so it gets the error too; a
  // store that only taps every action does not.
  @Test func catchAllReducerStoreGetsTheCarriedErrorButATapOnlyStoreDoesNot() {
    let dispatcher = Dispatcher()
    let catchAll = Store(
      initialState: EffState(), dispatcher: dispatcher,
      reducer: Reducer<EffState> { state, action in
        if let carry = action as? EffCarry { state.results.append(carry.value) }
      })
    let tapped = effStore(
      dispatcher: dispatcher,
      reducer: Reducer<EffState>().on(EffIncrement.self) { state, _ in state.count += 1 })
    let tapSeen = Recorder<String>()
    let tap = tapped.onAction { action, _ in tapSeen.append("\(type(of: action))") }

    catchAll.dispatch(EffCarry(value: 1, error: EffError(code: 1)))

    #expect(catchAll.state.results == [1])
    #expect(catchAll.errors.totalCount == 1)
    #expect(catchAll.errors.last?.source == .action("EffCarry"))
    #expect(dispatcher.errors.totalCount == 1)
    #expect(tapSeen.values == ["EffCarry"])
    #expect(tapped.errors.totalCount == 0)
    tap.cancel()
  }

  // Carried errors start no loop: the effects of the action run once, as for any action.
  @Test func carriedErrorsDoNotStopOrRepeatEffects() async {
    let runs = Recorder<Int>()
    let store = effStore(
      effects: Effects<EffState>().on(EffCarry.self) { action, _ in runs.append(action.value) })

    store.dispatch(EffCarry(value: 9, error: EffError(code: 9)))
    await effSettle(store)

    #expect(runs.values == [9])
    #expect(store.errors.totalCount == 1)
  }
}
