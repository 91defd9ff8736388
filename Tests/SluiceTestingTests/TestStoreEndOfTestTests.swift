import Sluice
import SluiceTesting
import Testing

/// Handled by no reducer; its effect waits until the test store is gone, then dispatches
/// `Pong(value:)`.
private struct PongLater: Action { let value: Int }
/// Handled by no reducer; its effect dispatches `Pong(value:)`, then waits until the test store
/// is gone before it returns: an effect still returning from its last dispatch.
private struct PongThenLinger: Action { let value: Int }

/// A weak reference to the test store, which effects watch to act while it goes away.
private final class StoreProbe: @unchecked Sendable {
  // @unchecked Sendable: `store` is a weak reference, whose loads and stores are atomic; it is
  // set once, before any effect reads it.
  weak var store: AnyObject?

  init() {}

  /// Returns once the test store began its deinitialization.
  func waitUntilGone() async {
    while store != nil { await Task.yield() }
  }
}

private func makeProbedStore(
  _ probe: StoreProbe, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column
) -> TestStore<Counter> {
  let store = TestStore(
    initialState: Counter(), reducer: counterReducer,
    effects: Effects<Counter>()
      .on(PongLater.self) { action, context in
        await probe.waitUntilGone()
        context.dispatch(Pong(value: action.value))
      }
      .on(PongThenLinger.self) { action, context in
        context.dispatch(Pong(value: action.value))
        await probe.waitUntilGone()
      }, fileID: fileID, filePath: filePath, line: line, column: column)
  probe.store = store
  return store
}

/// The end-of-test check of an exhaustive `TestStore`: actions left unasserted, effects still
/// running, and what they dispatch as the test ends.
///
/// Serialized: a deinitialization that finds effects running blocks its thread for a moment,
/// and the effects need a thread of the (small) cooperative pool to end meanwhile.
@Suite(.serialized) struct TestStoreEndOfTestTests {
  @Test func anEffectThatDispatchesAsTheTestEndsFailsTheTest() async throws {
    let line = #line + 5
    let failures = await expectFailures(
      "An effect still running at the end of the test (the effect on PongLater) dispatched 1 "
        + "action after it, which nobody asserted"
    ) {
      let store = makeProbedStore(StoreProbe())
      await store.send(PongLater(value: 5))
    }
    let failure = try #require(failures.first)
    #expect(failure.text.contains("Pong(value: 5)"))
    #expect(failure.text.contains("Await finish() and assert them with receive(_:)"))
    // Reported where the test store was made.
    #expect(failure.line == line)
  }

  @Test func anEffectReturningFromItsLastDispatchLetsTheTestEnd() async {
    let store = makeProbedStore(StoreProbe())
    await store.send(PongThenLinger(value: 1))
    await store.receive(Pong(value: 1)) { $0.results = ["pong 1"] }
  }  // no failure: the effect returns while the test store goes away

  @Test func anEffectStillRunningAfterTheEndFailsTheTestNamingIt() async {
    let clock = ManualClock()
    await expectFailures(
      "2 effects are still running at the end of the test: the effect on Wait, the effect on "
        + "Work. Await finish() (or the task send returned) to let them end"
    ) {
      let store = makeStore(clock: clock)
      await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
      await store.send(Work(until: .seconds(2)))
    }
    await waitUntil("the sleepers are gone") { clock.sleeperCount == 0 }
  }

  @Test func finishingTheEffectsLetsTheTestEnd() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Work(until: .seconds(1)))
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func cancellingTheTaskOfTheSendLetsTheTestEnd() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await task.cancel()
    #expect(clock.sleeperCount == 0)
  }

  @Test func aLenientStoreChecksNothingAtTheEnd() async {
    let probe = StoreProbe()
    do {
      let store = makeProbedStore(probe)
      store.exhaustivity = .off
      await store.send(PongLater(value: 1))
    }
  }

  // MARK: - deinit

  @Test func deinitWithUnassertedReceivedActions() async {
    let line = #line + 2
    let failures = await expectFailures("The store received 1 unexpected action") {
      let store = TestStore(
        initialState: Counter(), reducer: counterReducer,
        effects: counterEffects(clock: ManualClock()))
      await store.send(Ping(value: 1))
      await store.store.settle()
    }
    #expect(failures.first?.text.contains("Pong(value: 1)") == true)
    // Reported where the test store was made.
    #expect(failures.first?.line == line)
  }

  @Test func deinitWithAnEffectStillRunning() async {
    let clock = ManualClock()
    await expectFailures(
      "1 effect is still running at the end of the test: the effect on Wait. Await finish()"
    ) {
      let store = makeStore(clock: clock)
      await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    }
    // The deinitialization cancelled it.
    await waitUntil("the sleeper is gone") { clock.sleeperCount == 0 }
  }

  @Test func deinitWithBoth() async {
    let clock = ManualClock()
    await expectFailures("The store received 2 unexpected actions", "1 effect is still running") {
      let store = makeStore(clock: clock)
      await store.send(Ping(value: 1))
      await store.store.settle()
      // Dispatched to the store directly, so received rather than sent.
      store.store.dispatch(Wait(until: .seconds(1)))
      #expect(store.state.waiting)
    }
    await waitUntil("the sleeper is gone") { clock.sleeperCount == 0 }
  }

  @Test func deinitRightAfterSkipInFlightEffects() async {
    // Skipped effects are no longer tracked, even one that ignores cancellation and is still
    // running when the test ends.
    let gate = Gate()
    do {
      let store = TestStore(
        initialState: Counter(),
        effects: Effects<Counter>().on(Noop.self) { _, _ in await gate.wait() })
      await store.send(Noop())
      store.skipInFlightEffects()
      await store.finish()
    }
    gate.open()
  }
}
