import Sluice
import SluiceTesting
import Testing

/// Passing flows of an exhaustive `TestStore`.
///
/// Most tests whose effects dispatched actions end with `finish()`; those that do not rely on
/// the end-of-test check letting the effect that dispatched the last action received return
/// (see `TestStoreEndOfTestTests`).
@Suite struct TestStoreExhaustiveTests {
  @Test func isExhaustiveByDefault() {
    let store = makeStore()
    #expect(store.exhaustivity == .on)
    #expect(store.state == Counter())
  }

  @Test func sendChecksTheExactMutation() async {
    let store = makeStore()
    await store.send(Increment()) { $0.count = 1 }
    await store.send(SetText(text: "a")) { $0.text = "a" }
    await store.send(SetBoth(count: 5, text: "b")) {
      $0.count = 5
      $0.text = "b"
    }
    #expect(store.state == Counter(count: 5, text: "b"))
  }

  @Test func sendAcceptsARelativeMutation() async {
    let store = makeStore()
    await store.send(Increment()) { $0.count += 1 }
    await store.send(Increment()) { $0.count += 1 }
    #expect(store.state.count == 2)
  }

  @Test func sendWithoutClosureWhenTheStateDoesNotChange() async {
    let store = makeStore()
    await store.send(Noop())
    // No reducer handles `Ping`, so the store sees it and nothing changes; its effect then
    // dispatches `Pong`.
    await store.send(Ping(value: 1))
    await store.receive(Pong.self) { $0.results = ["pong 1"] }
    await store.finish()
  }

  @Test func sendWithAClosureWhenNothingChangesFails() async {
    // As in TCA: a closure says the state changes; if it did not, the closure is wrong.
    let store = makeStore()
    await expectFailures("Expected state to change after sending Noop, but no change occurred") {
      await store.send(Noop()) { $0.count = 0 }
    }
  }

  @Test func receiveByType() async {
    let store = makeStore()
    await store.send(Load(to: 42)) { $0.value.start() }
    await store.receive(Loaded.self) { $0.value.fill(42) }
    await store.send(Increment()) { $0.count = 1 }
    #expect(store.state.value == .loaded(42))
    await store.finish()
  }

  @Test func receiveByEquatableValue() async {
    let store = makeStore()
    await store.send(Ping(value: 7))
    await store.receive(Pong(value: 7)) { $0.results = ["pong 7"] }
    await store.finish()
  }

  @Test func receiveSeveralActionsInOrder() async {
    let store = makeStore()
    await store.send(Burst())
    await store.receive(Increment.self) { $0.count = 1 }
    await store.receive(SetText.self) { $0.text = "burst" }
    await store.receive(Pong(value: 3)) { $0.results = ["pong 3"] }
    await store.finish()
  }

  @Test func receiveAnActionThatChangesNothingWithoutClosure() async {
    let dispatcher = Dispatcher()
    let store = TestStore(
      initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer,
      effects: Effects<Counter>().on(Ping.self) { _, context in context.dispatch(Noop()) })
    await store.send(Ping(value: 0))
    await store.receive(Noop.self)
    await store.finish()
  }

  @Test func debouncedEffectOnAManualClock() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Query(text: "s")) { $0.text = "s" }
    await clock.advance(by: .milliseconds(200))
    await store.send(Query(text: "sw")) { $0.text = "sw" }
    // 300 ms after the first query, but only 100 ms after the second: nothing yet.
    await clock.advance(by: .milliseconds(100))
    #expect(store.state.results.isEmpty)
    await clock.advance(by: .milliseconds(200))
    await store.receive(Results(text: "sw")) { $0.results = ["sw"] }
    await store.finish()
  }

  @Test func effectBlockedOnTheClockThenReceived() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await waitUntil("the effect sleeps") { clock.sleeperCount == 1 }
    await clock.advance(by: .seconds(1))
    await store.receive(Waited()) { $0.waiting = false }
    await store.finish()
  }

  @Test func finishWaitsForAnEffectThatDispatchesNothing() async {
    let clock = ManualClock()
    let log = TestLog<Duration>()
    let store = makeStore(clock: clock, log: log)
    await store.send(Work(until: .seconds(2)))
    await clock.advance(by: .seconds(2))
    await store.finish()
    #expect(log.values == [.seconds(2)])
    #expect(store.store.effectsInFlight == 0)
  }

  @Test func finishWithNothingRunning() async {
    let store = makeStore()
    await store.send(Increment()) { $0.count = 1 }
    await store.finish()
  }

  @Test func skipReceivedActions() async {
    let store = makeStore()
    await store.send(Burst())
    await store.store.settle()
    store.skipReceivedActions()
    #expect(store.state.count == 1)
    await store.send(Increment()) { $0.count = 2 }
  }

  @Test func skipReceivedActionsBeforeTheEnd() async {
    let store = makeStore()
    await store.send(Ping(value: 1))
    await store.store.settle()
    store.skipReceivedActions()
  }  // no failure at deinitialization

  @Test func skipInFlightEffects() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await waitUntil("the effect sleeps") { clock.sleeperCount == 1 }
    store.skipInFlightEffects()
    #expect(clock.sleeperCount == 0)
    // The cancelled effect still counts as running until its task ends (see
    // `TestStoreFailureTests.deinitRightAfterSkipInFlightEffects`).
    await waitForCancelledEffects(store)
    await clock.advance(by: .seconds(1))
    #expect(store.state.waiting)
  }

  @Test func stateReflectsTheStore() async {
    let store = makeStore()
    await store.send(SetBoth(count: 3, text: "x")) {
      $0.count = 3
      $0.text = "x"
    }
    #expect(store.state == store.store.state)
  }
}
