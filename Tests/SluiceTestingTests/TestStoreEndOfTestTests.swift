import Foundation
import Sluice
import SluiceTesting
import Testing

/// Handled by no reducer; its effect hands its context to the test, then sleeps until it is
/// cancelled.
private struct PongLater: Action { let value: Int }
/// Handled by no reducer; its effect dispatches `Pong(value:)`, then lets other tasks run a few
/// times before it returns: an effect still returning from its last dispatch.
private struct PongThenLinger: Action { let value: Int }

/// The context of the effect on `PongLater`, for the test to dispatch through it while the test
/// store goes away.
private final class ContextBox: @unchecked Sendable {
  // @unchecked Sendable: `context` is only touched under `lock`.
  private let lock = NSLock()
  private var context: EffectContext<Counter>?

  init() {}

  func keep(_ context: EffectContext<Counter>) { lock.withLock { self.context = context } }

  /// Dispatches `action` through the effect's context, as the effect would.
  func dispatch(_ action: some Action) {
    lock.withLock { context }?.dispatch(action)
  }
}

private func makeProbedStore(
  _ box: ContextBox = ContextBox(), fileID: StaticString = #fileID,
  filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> TestStore<Counter> {
  TestStore(
    initialState: Counter(), reducer: counterReducer,
    effects: Effects<Counter>()
      .on(PongLater.self) { _, context in
        box.keep(context)
        try? await Task.sleep(for: .seconds(3600))
      }
      .on(PongThenLinger.self) { action, context in
        context.dispatch(Pong(value: action.value))
        for _ in 0..<5 { await Task.yield() }
      }, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// The end-of-test check of an exhaustive `TestStore`: actions left unasserted, effects still
/// running, and what they dispatch as the test ends.
///
@Suite struct TestStoreEndOfTestTests {
  @Test func anEffectThatDispatchesAsTheTestEndsFailsTheTest() async throws {
    let line = #line + 7
    let failures = await expectFailures(
      "1 effect is still running at the end of the test: the effect on PongLater",
      "An effect still running at the end of the test (the effect on PongLater) dispatched 1 "
        + "action after it, which nobody asserted"
    ) {
      let box = ContextBox()
      let store = makeProbedStore(box)
      await store.send(PongLater(value: 5))
      // The effect dispatches while the test store goes away, after the actions left over were
      // counted.
      store.willWaitForEffectsAtTheEnd = { box.dispatch(Pong(value: 5)) }
    }
    let late = try #require(failures.last)
    #expect(late.text.contains("Pong(value: 5)"))
    #expect(late.text.contains("Await finish() and assert them with receive(_:)"))
    // Reported where the test store was made.
    #expect(failures.allSatisfy { $0.line == line })
  }

  @Test func anEffectThatDispatchesAndEndsAsTheTestEndsFailsTheTest() async {
    let lateFailures = TestLog<String>()
    await withKnownIssue {
      let box = ContextBox()
      let store = makeProbedStore(box)
      await store.send(PongLater(value: 7))
      // The effect dispatches, then is cancelled and ends, within the grace of the deinit.
      store.willWaitForEffectsAtTheEnd = { [inner = store.store] in
        box.dispatch(Pong(value: 7))
        inner.cancelEffects()
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined(separator: "\n")
      if text.contains("dispatched 1 action after it"), text.contains("Pong(value: 7)") {
        lateFailures.append(text)
      }
      return true
    }
    #expect(lateFailures.values.count == 1)
  }

  @Test func anEffectReturningFromItsLastDispatchLetsTheTestEnd() async {
    let store = makeProbedStore()
    await store.send(PongThenLinger(value: 1))
    await store.receive(Pong(value: 1)) { $0.results = ["pong 1"] }
  }  // no failure: the effect returns while the test goes on or the test store goes away

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
    let store = makeProbedStore()
    store.exhaustivity = .off
    await store.send(PongLater(value: 1))
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
