import Foundation
import Sluice
import Testing

/// RxStateFlow's README command: increments while the counter is below ten.
struct EffIncreaseBelowTen: Command {
  func execute(state: EffState, dispatch: Dispatch) {
    if state.count < 10 { dispatch(EffIncrement()) }
  }
}

/// Dispatches `count` increments, without a condition.
struct EffIncreaseBy: Command {
  let count: Int
  func execute(state: EffState, dispatch: Dispatch) {
    for _ in 0..<count { dispatch(EffIncrement()) }
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

  // `store.execute { state, dispatch in }` is a thunk with the same semantics.
  @Test func executeRunsAThunkWithStateAndDispatch() {
    let store = effStore()
    let seen = Recorder<Int>()

    for _ in 0..<12 {
      store.execute { state, dispatch in
        seen.append(state.count)
        if state.count < 10 { dispatch(EffIncrement()) }
      }
    }

    #expect(store.state.count == 10)
    #expect(seen.values == Array(0..<10) + [10, 10])
  }

  // The `Dispatch` of a command may queue with `.async`; settle waits for it.
  @Test func commandDispatchCanBeAsync() async {
    let store = effStore()

    store.execute { _, dispatch in dispatch(EffIncrement(), mode: .async) }
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

  // Async commands started from several threads all run, and settle waits for all of them.
  @Test func asyncCommandsFromManyThreadsAllRun() async {
    let store = effStore()
    let threads = 4
    let perThread = 25

    await runOnThreads(threads) { _ in
      for _ in 0..<perThread {
        store.launch { context in context.dispatch(EffIncrement()) }
      }
    }
    await effSettle(store)

    #expect(store.state.count == threads * perThread)
    #expect(store.effectsInFlight == 0)
  }
}
