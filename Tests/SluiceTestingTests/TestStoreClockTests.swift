import Clocks
import Foundation
import Sluice
import SluiceTesting
import Testing

/// A counter saved to an in-memory storage.
private struct Saved: Codable, Equatable, Sendable { var value = 0 }
private struct Bump: Action {}

/// Any `Clock<Duration>` drives the library's timing: swift-clocks' `TestClock` as well as
/// `ManualClock`, for debounced effects, effects that sleep, and coalesced saves.
@Suite struct TestStoreClockTests {
  @Test func aDebouncedEffectOnATestClock() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(Query(text: "s")) { $0.text = "s" }
    await clock.advance(by: .milliseconds(200))
    await store.send(Query(text: "sw")) { $0.text = "sw" }
    await clock.advance(by: .milliseconds(100))
    #expect(store.state.results.isEmpty)
    await clock.advance(by: .milliseconds(200))
    await store.receive(Results(text: "sw")) { $0.results = ["sw"] }
    await store.finish()
  }

  @Test func anEffectSleepingOnATestClock() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await clock.advance(by: .seconds(1))
    await task.finish()
    await store.receive(Waited()) { $0.waiting = false }
  }

  @Test func cancellingAnEffectSleepingOnATestClock() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    let task = await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await task.cancel()
    #expect(task.isCancelled)
    await clock.advance(by: .seconds(1))
    #expect(store.state.waiting)
  }

  @Test func coalescedSavesOnATestClock() async {
    let clock = TestClock()
    let storage = InMemoryStorage()
    let store = Store(
      initialState: Saved(),
      reducer: Reducer<Saved>().on(Bump.self) { state, _ in state.value += 1 },
      persistence: .inMemory("saved", storage)
        .saving(.coalesced(debounce: .seconds(2), maxDelay: .seconds(10))).clock(clock))
    store.dispatch(Bump())
    store.dispatch(Bump())
    #expect(storage.writes == 0)
    await clock.advance(by: .seconds(2))
    await waitUntil("the state was saved") { store.persistence?.writeCount == 1 }
    #expect(storage.writes == 1)
    #expect(store.persistence?.hasPendingChanges == false)
  }

  @Test func aStoreOfTheFixturesRunsOnEitherClock() async {
    // The fixtures take any `Clock<Duration>`; so does a store's `Dependencies.clock`.
    func run(_ clock: some Clock<Duration>, advance: (Duration) async -> Void) async {
      let store = makeStore(clock: clock)
      await store.send(Query(text: "x")) { $0.text = "x" }
      await advance(.milliseconds(300))
      await store.receive(Results(text: "x")) { $0.results = ["x"] }
      await store.finish()
    }
    let manual = ManualClock()
    await run(manual) { await manual.advance(by: $0) }
    let test = TestClock()
    await run(test) { await test.advance(by: $0) }
  }
}
