import Sluice
import Testing

enum EffKey: Hashable, Sendable { case a, one }

@Suite struct EffectCancellationTests {
  // `cancelEffects(id:)` cancels only the runs of that id; the others keep running.
  @Test func cancelEffectsByIDCancelsOnlyThatID() async {
    let gates = EffGates()
    let outcomes = Recorder<String>()
    let store = effStore(
      effects: Effects<EffState>()
        .on(EffTrigger.self, id: "a") { _, context in
          do {
            try await gates.waitOrCancel()
            context.dispatch(EffResult(value: 1))
          } catch {
            outcomes.append("a cancelled")
          }
        }
        .on(EffTrigger.self, id: EffectID(1)) { _, context in
          try await gates.waitOrCancel()
          context.dispatch(EffResult(value: 2))
        })

    store.dispatch(EffTrigger(value: 0))
    #expect(await effEventually { gates.waiting() == 2 })
    store.cancelEffects(id: "a")
    #expect(await effEventually { outcomes.count == 1 })
    #expect(gates.waiting() == 1)

    gates.open()
    await effSettle(store)
    #expect(outcomes.values == ["a cancelled"])
    #expect(store.state.results == [2])
  }

  // The dispatcher cancels by id too, across its stores.
  @Test func dispatcherCancelEffectsReachesEveryStoreOnTheLane() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let effects = Effects<EffState>().on(EffTrigger.self, id: EffectID(EffKey.a)) {
      action, context in
      await gates.wait()
      context.dispatch(EffResult(value: action.value))
    }
    let first = effStore(dispatcher: dispatcher, effects: effects)
    let second = effStore(dispatcher: dispatcher, effects: effects)

    dispatcher.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting() == 2 })
    dispatcher.cancelEffects(id: EffectID(EffKey.a))
    gates.open()
    await effSettle(dispatcher)

    #expect(first.state.results.isEmpty)
    #expect(second.state.results.isEmpty)
  }

  // `Effects.cancel(_:on:)` cancels the id's runs when the action arrives; their dispatches
  // are dropped.
  @Test func cancelOnActionCancelsTheRunsOfTheID() async {
    let gates = EffGates()
    let flags = Recorder<Bool>()
    let store = effStore(
      effects: Effects<EffState>()
        .on(EffTrigger.self, id: "load") { action, context in
          await gates.wait()
          flags.append(context.isCancelled)
          context.dispatch(EffResult(value: action.value))
          await context.send(EffResult(value: action.value))
        }
        .cancel("load", on: EffStop.self))

    store.dispatch(EffTrigger(value: 1))
    store.dispatch(EffTrigger(value: 2))
    #expect(await effEventually { gates.waiting() == 2 })
    store.dispatch(EffStop())
    gates.open()
    await effSettle(store)

    #expect(flags.values == [true, true])
    #expect(store.state.results.isEmpty)

    store.dispatch(EffTrigger(value: 3))
    await effSettle(store)
    #expect(store.state.results == [3, 3], "the id runs again after the cancelling action")
  }

  // `cancel(_:on:)` only fires for its action type, and a cancel for an unknown id is harmless.
  @Test func cancelOnActionIgnoresOtherIDs() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>()
        .on(EffTrigger.self, id: "keep") { action, context in
          await gates.wait()
          context.dispatch(EffResult(value: action.value))
        }
        .cancel("other", on: EffStop.self))

    store.dispatch(EffTrigger(value: 4))
    #expect(await effEventually { gates.waiting() == 1 })
    store.dispatch(EffStop())
    gates.open()
    await effSettle(store)

    #expect(store.state.results == [4])
  }

  // `cancelEffects()` cancels every effect of the lane.
  @Test func cancelAllEffectsCancelsEverything() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let cancelled = Recorder<String>()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>()
        .on(EffTrigger.self) { _, _ in
          do { try await gates.waitOrCancel() } catch { cancelled.append("trigger") }
        }
        .on(EffPing.self, policy: .latest, id: "ping") { _, _ in
          do { try await gates.waitOrCancel() } catch { cancelled.append("ping") }
        })
    let dispatcherEffects = dispatcher.addEffects(
      Effects<Void>().on(EffPing.self) { _, _ in
        do { try await gates.waitOrCancel() } catch { cancelled.append("lane") }
      })

    store.dispatch(EffTrigger(value: 1))
    store.dispatch(EffPing())
    #expect(await effEventually { gates.waiting() == 3 })
    #expect(store.effectsInFlight == 3)

    store.cancelEffects()
    await effSettle(store)
    #expect(cancelled.values.sorted() == ["lane", "ping", "trigger"])

    store.dispatch(EffPing())
    #expect(await effEventually { gates.waiting() == 2 }, "cancelAll must not unregister")
    dispatcher.cancelEffects()
    await effSettle(dispatcher)
    #expect(cancelled.count == 5)
    dispatcherEffects.cancel()
  }

  // Cancelling the subscription of `addEffects` removes the effects and cancels their runs.
  @Test func cancellingTheAddEffectsSubscriptionRemovesAndCancels() async {
    let gates = EffGates()
    let runs = Recorder<String>()
    let store = effStore()
    let subscription = store.addEffects(
      Effects<EffState>().on(EffTrigger.self) { action, context in
        runs.append("start \(action.value)")
        await gates.wait()
        if context.isCancelled { runs.append("cancelled \(action.value)") }
        context.dispatch(EffResult(value: action.value))
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting() == 1 })
    subscription.cancel()
    #expect(subscription.isCancelled)
    store.dispatch(EffTrigger(value: 2))
    gates.open()
    await effSettle(store)

    #expect(runs.values == ["start 1", "cancelled 1"])
    #expect(store.state.results.isEmpty)
  }

  // Cancelling one `addEffects` subscription leaves the store's other effects alone.
  @Test func cancellingOneSubscriptionKeepsTheOtherEffects() async {
    let runs = Recorder<String>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { _, _ in runs.append("initial") })
    let kept = store.addEffects(
      Effects<EffState>().on(EffTrigger.self) { _, _ in runs.append("kept") })
    let removed = store.addEffects(
      Effects<EffState>().on(EffTrigger.self) { _, _ in runs.append("removed") })

    removed.cancel()
    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(runs.values.sorted() == ["initial", "kept"])
    kept.cancel()
  }

  // Effects whose subscription was dropped survive cancelling another `addEffects` subscription.
  @Test func droppedSubscriptionEffectsSurviveCancellingAnotherSubscription() async {
    let rounds = 20
    let runs = Recorder<String>()
    let store = effStore()
    for _ in 0..<rounds {
      store.addEffects(Effects<EffState>().on(EffPing.self) { _, _ in runs.append("kept") })
      let other = store.addEffects(
        Effects<EffState>().on(EffPing.self) { _, _ in runs.append("removed") })
      other.cancel()
    }

    store.dispatch(EffPing())
    await effSettle(store)

    #expect(runs.values == Array(repeating: "kept", count: rounds))
    #expect(!runs.values.contains("removed"))
  }

  // The same for dispatcher-level effects.
  @Test func droppedDispatcherSubscriptionEffectsSurviveCancellingAnother() async {
    let rounds = 20
    let runs = Recorder<String>()
    let dispatcher = Dispatcher()
    for _ in 0..<rounds {
      dispatcher.addEffects(Effects<Void>().on(EffPing.self) { _, _ in runs.append("kept") })
      let other = dispatcher.addEffects(
        Effects<Void>().on(EffPing.self) { _, _ in runs.append("removed") })
      other.cancel()
    }

    dispatcher.dispatch(EffPing())
    await effSettle(dispatcher)

    #expect(runs.values == Array(repeating: "kept", count: rounds))
    #expect(!runs.values.contains("removed"))
  }

  // Dropping the subscription of `addEffects` does not end the effects.
  @Test func droppingTheAddEffectsSubscriptionKeepsTheEffects() async {
    let runs = Recorder<Int>()
    let store = effStore()
    do {
      _ = store.addEffects(
        Effects<EffState>().on(EffTrigger.self) { action, _ in runs.append(action.value) })
    }

    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)

    #expect(runs.values == [1])
  }

  // A store's effects are cancelled when it is deinitialized; what they dispatch then is
  // dropped, and the store is not kept alive by them.
  @Test func storeDeinitCancelsItsEffects() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let flags = Recorder<Bool>()
    let witness = effStore(dispatcher: dispatcher)
    var owner: Store<EffState>? = effStore(
      dispatcher: dispatcher, reducer: Reducer(),
      effects: Effects<EffState>().on(EffPing.self) { _, context in
        await gates.wait()
        flags.append(context.isCancelled)
        context.dispatch(EffResult(value: 1))
      })
    weak let weakOwner = owner

    dispatcher.dispatch(EffPing())
    #expect(await effEventually { gates.waiting() == 1 })
    owner = nil
    #expect(weakOwner == nil, "a running effect kept its store alive")
    gates.open()
    await effSettle(dispatcher)

    #expect(flags.values == [true])
    #expect(witness.state.results.isEmpty)

    dispatcher.dispatch(EffPing())
    await effSettle(dispatcher)
    #expect(flags.count == 1, "the effects of a deinitialized store still run")
  }

  // Dispatcher-level effects are cancelled when the Dispatcher object is deinitialized: once the
  // program let go of it and of every store on it, registered or not.
  @Test func dispatcherDeinitCancelsItsEffects() async {
    let gates = EffGates()
    let flags = Recorder<Bool>()
    var dispatcher: Dispatcher? = Dispatcher()
    var owner: Store<EffState>? = effStore(dispatcher: dispatcher)
    var store: Store<EffState>? = effStore(dispatcher: dispatcher)
    if let store { dispatcher?.register(store) }
    dispatcher?.addEffects(
      Effects<Void>().on(EffPing.self) { _, context in
        await gates.wait()
        flags.append(context.isCancelled)
        context.dispatch(EffResult(value: 1))
      })
    weak let weakDispatcher = dispatcher

    store?.dispatch(EffPing())
    #expect(await effEventually { gates.waiting() == 1 })
    dispatcher = nil
    owner = nil
    #expect(weakDispatcher != nil, "a store on the lane, registered or not, keeps its dispatcher")
    #expect(store?.dispatcher === weakDispatcher)
    #expect(owner == nil)
    store = nil
    #expect(weakDispatcher == nil)
    gates.open()

    #expect(await effEventually { flags.count == 1 })
    #expect(flags.values == [true])
  }

  // `context.checkCancellation()` throws once the effect was cancelled; nothing is reported.
  @Test func checkCancellationThrowsAfterCancel() async {
    let gates = EffGates()
    let reached = Recorder<String>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, id: "c") { _, context in
        await gates.wait()
        reached.append("before check")
        try context.checkCancellation()
        reached.append("after check")
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting() == 1 })
    store.cancelEffects(id: "c")
    gates.open()
    await effSettle(store)

    #expect(reached.values == ["before check"])
    #expect(store.errors.totalCount == 0)
  }

  // EffectID compares the wrapped values: same type and value are equal, across types never.
  @Test func effectIDEqualityAcrossTypes() {
    let literal: EffectID = "a"
    #expect(EffectID("a") == literal)
    #expect(EffectID("a") != EffectID(1))
    #expect(EffectID(1) == EffectID(1))
    #expect(EffectID(1) != EffectID(2))
    #expect(EffectID(EffKey.a) != EffectID("a"))
    #expect(EffectID(EffKey.a) == EffectID(EffKey.a))
    #expect(Set([EffectID("a"), EffectID("a"), EffectID(1), EffectID(EffKey.a)]).count == 3)
    #expect(EffectID("a").description == "a")
    #expect(EffectID(1).description == "1")
  }

  // Cancelling an id of another type with the same description cancels nothing.
  @Test func cancellingAnIDOfAnotherTypeCancelsNothing() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, id: EffectID(1)) { action, context in
        await gates.wait()
        context.dispatch(EffResult(value: action.value))
      })

    store.dispatch(EffTrigger(value: 8))
    #expect(await effEventually { gates.waiting() == 1 })
    store.cancelEffects(id: "1")
    gates.open()
    await effSettle(store)

    #expect(store.state.results == [8])
  }
}
