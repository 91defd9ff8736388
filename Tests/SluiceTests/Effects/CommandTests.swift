import Foundation
import Sluice
import Testing

/// RxStateFlow's README command, as Sluice writes it: an action and an effect on it, which
/// increments while the counter is below ten.
struct EffIncreaseBelowTen: Action {}

/// The effect of ``EffIncreaseBelowTen``: reads the state and decides what to dispatch.
let effIncreaseBelowTen = Effects<EffState>()
  .on(EffIncreaseBelowTen.self) { _, context in
    if context.state.count < 10 { context.dispatch(EffIncrement()) }
  }

/// Asks for asynchronous work, with the count when it was asked; no reducer handles it.
struct EffStart: Action { let snapshot: Int }

/// Commands (thunks) are effects on an action of their own (S14).
@Suite struct CommandTests {
  // A command dispatches conditionally: below ten it increments, at ten it does not.
  @Test func aCommandDispatchesConditionally() async {
    let store = effStore(effects: effIncreaseBelowTen)

    store.dispatch(EffIncreaseBelowTen())
    await effSettle(store)
    #expect(store.state.count == 1)
    for _ in 0..<20 {
      store.dispatch(EffIncreaseBelowTen())
      await effSettle(store)
    }

    #expect(store.state.count == 10)
  }
}

@Suite struct CommandConcurrencyTests {
  // Effects started from several threads at once all run, and settle waits for all of them.
  @Test func effectsStartedFromManyThreadsAllRun() async {
    let store = effStore(
      effects: Effects<EffState>().on(EffStart.self) { _, context in
        context.dispatch(EffIncrement())
      })
    let threads = 4
    let perThread = 25

    await runOnThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(EffStart(snapshot: store.state.count)) }
    }
    await effSettle(store)

    #expect(store.state.count == threads * perThread)
    #expect(store.effectsInFlight == 0)
  }
}
