import Sluice
import SluiceTesting
import Testing

/// The `TestStoreTask` that `send` returns: the effects the action started.
@Suite struct TestStoreTaskTests {
  @Test func finishWaitsForTheEffectsOfTheAction() async {
    let clock = ManualClock()
    let log = TestLog<Duration>()
    let store = makeStore(clock: clock, log: log)
    let task = await store.send(Work(until: .seconds(1)))
    await clock.advance(by: .seconds(1))
    await task.finish()
    #expect(log.values == [.seconds(1)])
    #expect(!task.isCancelled)
  }

  @Test func finishFailsWhenAnEffectIsStillRunningAfterTheTimeout() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Work(until: .seconds(1)))
    let line = #line + 2
    let failures = await expectFailures("An effect started by Work is still running after 0.05") {
      await task.finish(timeout: .milliseconds(50))
    }
    #expect(failures.first?.line == line)
    await task.cancel()
  }

  @Test func cancelEndsTheEffectsAndDropsWhatTheyWouldDispatch() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    #expect(!task.isCancelled)
    await task.cancel()
    #expect(task.isCancelled)
    #expect(clock.sleeperCount == 0)
    #expect(store.store.effectsInFlight == 0)
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(store.state.waiting)
  }

  @Test func theTaskCoversOnlyTheEffectsOfItsAction() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    let wait = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    let work = await store.send(Work(until: .seconds(1)))
    await work.cancel()
    #expect(!wait.isCancelled)
    await clock.advance(by: .seconds(1))
    await wait.finish()
    await store.receive(Waited()) { $0.waiting = false }
  }

  @Test func anActionWithoutEffectsGivesAnEmptyTask() async {
    let store = makeStore()
    let task = await store.send(Increment()) { $0.count = 1 }
    await task.finish(timeout: .zero)
    #expect(!task.isCancelled)
    await task.cancel()
    #expect(task.isCancelled)
  }

  @Test func skipInFlightEffectsCancelsTheTask() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    store.skipInFlightEffects()
    #expect(task.isCancelled)
    await task.finish()
  }
}
