import Foundation
import Sluice
import Testing

/// RxStateFlow's README command: increments while the counter is below ten.
struct EffIncreaseBelowTen: Command {
  func execute(state: EffState, store: Store<EffState>) {
    if state.count < 10 { store.dispatch(EffIncrement()) }
  }
}

/// Dispatches `count` increments, without a condition.
struct EffIncreaseBy: Command {
  let count: Int
  func execute(state: EffState, store: Store<EffState>) {
    for _ in 0..<count { store.dispatch(EffIncrement()) }
  }
}

/// Records the state it got and the store's state after its increment.
struct EffRecordingIncrease: Command {
  let seen: Recorder<String>
  func execute(state: EffState, store: Store<EffState>) {
    store.dispatch(EffIncrement())
    seen.append("\(state.count) now \(store.state.count)")
  }
}

/// Queues an increment.
struct EffIncreaseLater: Command {
  func execute(state: EffState, store: Store<EffState>) {
    store.dispatch(EffIncrement(), mode: .async)
  }
}

/// Asks for asynchronous work, with the count when it was asked; no reducer handles it.
struct EffStart: Action { let snapshot: Int }

/// Starts the store's effect on `EffStart`: asynchronous work, started from a command.
struct EffStartCommand: Command {
  func execute(state: EffState, store: Store<EffState>) {
    store.dispatch(EffStart(snapshot: state.count))
  }
}

@Suite struct CommandTests {
  // A sync command dispatches conditionally: below ten it increments, at ten it does not.
  @Test func syncCommandDispatchesConditionally() {
    let store = effStore()

    store.dispatch(EffIncreaseBelowTen())
    #expect(store.state.count == 1, "the command ran synchronously")
    for _ in 0..<20 { store.dispatch(EffIncreaseBelowTen()) }

    #expect(store.state.count == 10)
  }

  // The command sees the state as it is when it starts.
  @Test func syncCommandSeesTheCurrentState() {
    let store = effStore()
    for _ in 0..<9 { store.dispatch(EffIncrement()) }

    store.dispatch(EffIncreaseBelowTen())
    #expect(store.state.count == 10)
    store.dispatch(EffIncreaseBelowTen())
    #expect(store.state.count == 10)
  }

  // The state a command gets is the state when it starts, also when its own dispatches changed
  // it since.
  @Test func commandGetsTheStateWhenItStarts() {
    let store = effStore()
    let seen = Recorder<String>()

    for _ in 0..<2 { store.dispatch(EffRecordingIncrease(seen: seen)) }

    #expect(store.state.count == 2)
    #expect(seen.values == ["0 now 1", "1 now 2"])
  }

  // A command may queue an action with `.async`; settle waits for it.
  @Test func commandDispatchCanBeAsync() async {
    let store = effStore()

    store.dispatch(EffIncreaseLater())
    await effSettle(store)

    #expect(store.state.count == 1)
  }

  // A command dispatched on a background thread runs there, with the same semantics.
  @Test func commandFromABackgroundThread() async {
    let store = effStore()

    let onMainThread = await offPool {
      for _ in 0..<15 { store.dispatch(EffIncreaseBelowTen()) }
      return Thread.isMainThread
    }

    #expect(!onMainThread)
    #expect(store.state.count == 10)
  }
}

@Suite struct CommandConcurrencyTests {
  // Commands dispatched from several threads at once lose no action.
  @Test func commandsFromManyThreadsLoseNothing() async {
    let store = effStore()
    let threads = 4
    let perThread = 100

    await runOnThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(EffIncreaseBy(count: 1)) }
    }

    #expect(store.state.count == threads * perThread)
  }

  // Effects started by commands from several threads all run, and settle waits for all of
  // them.
  @Test func effectsStartedByCommandsFromManyThreadsAllRun() async {
    let store = effStore(
      effects: Effects<EffState>().on(EffStart.self) { _, context in
        context.dispatch(EffIncrement())
      })
    let threads = 4
    let perThread = 25

    await runOnThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(EffStartCommand()) }
    }
    await effSettle(store)

    #expect(store.state.count == threads * perThread)
    #expect(store.effectsInFlight == 0)
  }
}
