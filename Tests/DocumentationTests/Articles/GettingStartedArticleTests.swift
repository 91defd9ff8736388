import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/GettingStarted.md, compiled and run.

enum GettingStartedArticle {
  struct Counter: Equatable, Sendable {
    var value = 0
    var step = 1
  }

  struct Increment: Action {}
  struct StepChanged: Action { let step: Int }

  struct Session: Equatable, Sendable { var user: String? }
  struct LoggedIn: Action { let user: String }
  struct LoggedOut: Action {}

  struct Load: Action {}
  struct Loaded: Action { let value: Int }

  /// The "any async function of your app" of the effects snippet.
  static func fetchValue() async throws -> Int {
    await Task.yield()
    return 42
  }

  static let reducer = Reducer<Counter>()
    .on(Increment.self) { state, _ in state.value += state.step }
    .on(StepChanged.self) { state, action in state.step = action.step }

  @Suite("Article: Getting Started")
  struct Tests {
    @Test func theReducerAndTheStoreReduceEveryAction() {
      let reducer = Reducer<Counter>()
        .on(Increment.self) { state, _ in state.value += state.step }
        .on(StepChanged.self) { state, action in state.step = action.step }

      let store = Store(initialState: Counter(), reducer: reducer)
      store.dispatch(Increment())
      store.dispatch(StepChanged(step: 10))
      store.dispatch(Increment())
      let value = store.state.value  // 11

      #expect(value == 11)
      #expect(store.state == Counter(value: 11, step: 10))
    }

    @Test func aKeyPathObserverSeesTheCurrentValueThenEachChange() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Counter(value: 11, step: 10), reducer: reducer)

      let subscription = store.observe(\.value) { change in
        print("value: \(change.old) → \(change.new)")
      }
      store.dispatch(Increment())
      store.dispatch(StepChanged(step: 1))
      store.dispatch(Increment())
      subscription.cancel()

      #expect(output.lines == ["value: 11 → 11", "value: 11 → 21", "value: 21 → 22"])
      store.dispatch(Increment())
      #expect(output.lines.count == 3, "a cancelled observer is not called again")
      #expect(subscription.isCancelled)
    }

    @Test func storesSharingADispatcherReduceOneActionInOneStep() {
      let dispatcher = Dispatcher()
      let session = Store(
        initialState: Session(), dispatcher: dispatcher,
        reducer: Reducer<Session>()
          .on(LoggedIn.self) { state, action in state.user = action.user }
          .on(LoggedOut.self) { state, _ in state.user = nil })
      let counter = Store(
        initialState: Counter(), dispatcher: dispatcher,
        reducer: reducer.on(LoggedOut.self) { state, _ in state = Counter() })
      dispatcher.dispatch(LoggedIn(user: "ada"))
      counter.dispatch(Increment())
      dispatcher.dispatch(LoggedOut())  // both stores reduce it, in one lane step

      #expect(session.state.user == nil)
      #expect(counter.state.value == 0)
      counter.dispatch(LoggedIn(user: "grace"))
      #expect(session.state.user == "grace", "an action dispatched through one store reaches all")
    }

    @Test func anEffectRunsAfterTheReducerAndDispatchesItsResult() async {
      let loading = Effects<Counter>()
        .on(Load.self) { _, context in
          let value = try await fetchValue()  // any async work
          context.dispatch(Loaded(value: value))
        }
      let store = Store(
        initialState: Counter(),
        reducer: reducer.on(Loaded.self) { state, action in state.value = action.value },
        effects: loading)
      store.dispatch(Load())
      await store.settle()  // the effect ran, and Loaded was reduced
      let value = store.state.value  // 42

      #expect(value == 42)
      #expect(store.effectsInFlight == 0)
    }
  }
}
