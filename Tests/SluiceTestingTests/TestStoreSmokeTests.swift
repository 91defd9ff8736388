import Sluice
import SluiceTesting
import Testing

private struct Counter: Equatable, Sendable {
  var value: Loadable<Int> = .idle
  var count = 0
}

private struct LoadCounter: Action { let to: Int }
private struct CounterLoaded: CompletableAction { let result: Result<Int, LoadError> }
private struct Bump: Action {}

private let reducer = Reducer<Counter>()
  .on(LoadCounter.self, start: \.value)
  .on(CounterLoaded.self, complete: \.value)
  .on(Bump.self) { state, _ in state.count += 1 }

private let effects = Effects<Counter>()
  .load(LoadCounter.self, as: CounterLoaded.self) { request, _ in request.to }

@Suite struct TestStoreSmokeTests {
  @Test func passingFlow() async {
    let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
    await store.send(LoadCounter(to: 42)) { $0.value.start() }
    await store.receive(CounterLoaded.self) { $0.value.fill(42) }
    await store.send(Bump()) { $0.count = 1 }
  }

  @Test func failsOnWrongState() async {
    let store = TestStore(initialState: Counter(), reducer: reducer)
    await withKnownIssue {
      await store.send(Bump()) { $0.count = 2 }
    }
  }

  @Test func failsOnUnreceived() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
      await store.send(LoadCounter(to: 1)) { $0.value.start() }
      await store.finish()
    }
  }
}
