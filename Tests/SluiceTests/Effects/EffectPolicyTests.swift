import Sluice
import SluiceTesting
import Testing

@Suite struct EffectPolicyTests {
  // `.every` (the default) runs one effect per action, concurrently.
  @Test func everyRunsConcurrently() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, policy: .every) { action, context in
        await gates.wait(action.value)
        context.dispatch(EffResult(value: action.value))
      })

    for value in 1...3 { store.dispatch(EffTrigger(value: value)) }

    #expect(await effEventually { gates.waitingTotal == 3 }, "the runs were not concurrent")
    #expect(store.effectsInFlight == 3)
    for value in [3, 1, 2] { gates.open(value) }
    await effSettle(store)
    #expect(store.state.results.sorted() == [1, 2, 3])
  }

  // `.latest` cancels the run in flight: its later dispatches are dropped, only the latest
  // result reaches the store.
  @Test func latestCancelsTheRunInFlightAndDropsItsDispatches() async {
    let gates = EffGates()
    let cancelled = Recorder<(Int, Bool)>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, policy: .latest) { action, context in
        await gates.wait(action.value)
        cancelled.append((action.value, context.isCancelled))
        context.dispatch(EffResult(value: action.value))
        await context.send(EffResult(value: action.value * 100))
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting(1) == 1 })
    store.dispatch(EffTrigger(value: 2))
    #expect(await effEventually { gates.waiting(2) == 1 })
    #expect(store.effectsInFlight == 2, "a cancelled run counts until it ends")

    gates.open(1)
    #expect(await effEventually { cancelled.count == 1 })
    gates.open(2)
    await effSettle(store)

    #expect(store.state.results == [2, 200])
    #expect(cancelled.values.map(\.0) == [1, 2])
    #expect(cancelled.values.map(\.1) == [true, false])
    #expect(store.state.count == 2, "every action is still reduced")
  }

  // `.latest` with a burst of actions: every earlier run is cancelled, the last one wins.
  @Test func latestKeepsOnlyTheLastOfABurst() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, policy: .latest) { action, context in
        await gates.wait()
        context.dispatch(EffResult(value: action.value))
      })

    for value in 1...10 { store.dispatch(EffTrigger(value: value)) }
    gates.open()
    await effSettle(store)

    #expect(store.state.results == [10])
  }

  // `.dropWhileRunning` ignores the action while a run is in flight, and runs again after.
  @Test func dropWhileRunningIgnoresActionsWhileARunIsInFlight() async {
    let gates = EffGates()
    let runs = Recorder<Int>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, policy: .dropWhileRunning) {
        action, context in
        runs.append(action.value)
        await gates.wait(action.value)
        context.dispatch(EffResult(value: action.value))
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting(1) == 1 })
    store.dispatch(EffTrigger(value: 2))
    store.dispatch(EffTrigger(value: 3))
    #expect(store.effectsInFlight == 1)
    gates.open(1)
    gates.open(2)
    gates.open(3)
    await effSettle(store)
    #expect(runs.values == [1])
    #expect(store.state.results == [1])
    #expect(store.state.count == 3, "ignored actions are still reduced")

    store.dispatch(EffTrigger(value: 4))
    gates.open(4)
    await effSettle(store)
    #expect(runs.values == [1, 4])
    #expect(store.state.results == [1, 4])
  }

  // A cancelled run no longer blocks `.dropWhileRunning`, even before its task has ended.
  @Test func dropWhileRunningRunsAgainOnceTheRunWasCancelled() async {
    let gates = EffGates()
    let runs = Recorder<Int>()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self, policy: .dropWhileRunning, id: "save") {
        action, context in
        runs.append(action.value)
        await gates.wait(action.value)
        context.dispatch(EffResult(value: action.value))
      })

    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting(1) == 1 })
    store.cancelEffects(id: "save")
    store.dispatch(EffTrigger(value: 2))
    #expect(await effEventually { gates.waiting(2) == 1 })
    #expect(runs.values == [1, 2])

    gates.open(1)
    gates.open(2)
    await effSettle(store)
    #expect(store.state.results == [2])
  }

  // Registrations sharing an id share `.latest`: a run of one cancels the run of the other.
  @Test func registrationsWithTheSameIDShareLatest() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>()
        .on(EffTrigger.self, policy: .latest, id: "shared") { action, context in
          await gates.wait(1)
          context.dispatch(EffResult(value: action.value))
        }
        .on(EffQuery.self, policy: .latest, id: "shared") { action, context in
          await gates.wait(2)
          context.dispatch(EffResult(value: action.text.count))
        })

    store.dispatch(EffTrigger(value: 50))
    #expect(await effEventually { gates.waiting(1) == 1 })
    store.dispatch(EffQuery(text: "abc"))
    gates.open(1)
    gates.open(2)
    await effSettle(store)

    #expect(store.state.results == [3])
  }

  // Without an id, each registration has its own: `.latest` on one does not cancel the other.
  @Test func registrationsWithoutIDsDoNotShareAPolicy() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>()
        .on(EffTrigger.self, policy: .latest) { action, context in
          await gates.wait()
          context.dispatch(EffResult(value: action.value))
        }
        .on(EffTrigger.self, policy: .latest) { action, context in
          await gates.wait()
          context.dispatch(EffResult(value: action.value + 1))
        })

    store.dispatch(EffTrigger(value: 10))
    gates.open()
    await effSettle(store)

    #expect(store.state.results.sorted() == [10, 11])
  }

  @Test func policiesDescribeThemselves() {
    #expect(EffectPolicy.every.description == "every")
    #expect(EffectPolicy.latest.description == "latest")
    #expect(EffectPolicy.dropWhileRunning.description == "dropWhileRunning")
    #expect(EffectPolicy.debounce(for: .milliseconds(300)).description.hasPrefix("debounce("))
  }
}

@Suite struct EffectDebounceTests {
  private func debouncedStore(
    clock: ManualClock, runs: Recorder<String>, window: Duration = .milliseconds(300)
  ) -> Store<EffState> {
    effStore(
      effects: Effects<EffState>().on(
        EffQuery.self, policy: .debounce(for: window)
      ) { action, context in
        runs.append(action.text)
        context.dispatch(EffResult(value: action.text.count))
      }, clock: clock)
  }

  // Several actions within the window give one run, with the last action.
  @Test func severalActionsWithinTheWindowRunOnceWithTheLast() async {
    let clock = ManualClock()
    let runs = Recorder<String>()
    let store = debouncedStore(clock: clock, runs: runs)

    store.dispatch(EffQuery(text: "s"))
    store.dispatch(EffQuery(text: "sw"))
    store.dispatch(EffQuery(text: "swi"))
    #expect(store.state.queries == ["s", "sw", "swi"], "the reducer is not debounced")

    await clock.advance(by: .milliseconds(300))
    await effSettle(store)

    #expect(runs.values == ["swi"])
    #expect(store.state.results == [3])
  }

  // Advancing less than the window runs nothing; advancing the rest runs the effect.
  @Test func nothingRunsBeforeTheWindowHasPassed() async {
    let clock = ManualClock()
    let runs = Recorder<String>()
    let store = debouncedStore(clock: clock, runs: runs)

    store.dispatch(EffQuery(text: "x"))
    #expect(await effEventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(299))
    await effYield()
    #expect(runs.values.isEmpty)
    #expect(clock.sleeperCount == 1)
    #expect(store.effectsInFlight == 1)

    await clock.advance(by: .milliseconds(1))
    await effSettle(store)
    #expect(runs.values == ["x"])
    #expect(store.state.results == [1])
  }

  // A new action restarts the window from its own arrival.
  @Test func aNewActionRestartsTheWindow() async {
    let clock = ManualClock()
    let runs = Recorder<String>()
    let store = debouncedStore(clock: clock, runs: runs)

    store.dispatch(EffQuery(text: "a"))
    await clock.advance(by: .milliseconds(200))
    store.dispatch(EffQuery(text: "ab"))
    #expect(await effEventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(200))
    await effYield()
    #expect(runs.values.isEmpty, "the first action's deadline passed but it was superseded")
    #expect(clock.sleeperCount == 1)

    await clock.advance(by: .milliseconds(100))
    await effSettle(store)
    #expect(runs.values == ["ab"])
  }

  // Actions separated by more than the window each run.
  @Test func actionsFartherApartThanTheWindowEachRun() async {
    let clock = ManualClock()
    let runs = Recorder<String>()
    let store = debouncedStore(clock: clock, runs: runs)

    store.dispatch(EffQuery(text: "one"))
    await clock.advance(by: .milliseconds(300))
    await effSettle(store)
    store.dispatch(EffQuery(text: "three"))
    await clock.advance(by: .milliseconds(300))
    await effSettle(store)

    #expect(runs.values == ["one", "three"])
    #expect(store.state.results == [3, 5])
  }

  // An action arriving while the debounced run is already running cancels that run too.
  @Test func aNewActionCancelsARunAlreadyPastItsWait() async {
    let clock = ManualClock()
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(
        EffQuery.self, policy: .debounce(for: .milliseconds(100))
      ) { action, context in
        await gates.wait(action.text.count)
        context.dispatch(EffResult(value: action.text.count))
      }, clock: clock)

    store.dispatch(EffQuery(text: "a"))
    await clock.advance(by: .milliseconds(100))
    #expect(await effEventually { gates.waiting(1) == 1 })
    store.dispatch(EffQuery(text: "ab"))
    gates.open(1)
    await clock.advance(by: .milliseconds(100))
    gates.open(2)
    await effSettle(store)

    #expect(store.state.results == [2])
  }

  // Cancelling a debounced effect by id ends its wait: settle does not wait for the clock.
  @Test func cancellingByIDEndsThePendingWait() async {
    let clock = ManualClock()
    let runs = Recorder<String>()
    let store = effStore(
      effects: Effects<EffState>().on(
        EffQuery.self, policy: .debounce(for: .seconds(1)), id: "search"
      ) { action, _ in runs.append(action.text) }, clock: clock)

    store.dispatch(EffQuery(text: "q"))
    #expect(await effEventually { clock.sleeperCount == 1 })
    store.cancelEffects(id: "search")
    await effSettle(store)

    #expect(clock.sleeperCount == 0)
    #expect(runs.values.isEmpty)
  }
}
