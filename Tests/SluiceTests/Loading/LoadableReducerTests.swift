import Foundation
import Sluice
import Testing

struct LdProfileState: Equatable, Sendable {
  var name: Loadable<String> = .idle
  var saving: TaskStatus = .idle
}

struct LdLoadName: Action {}
struct LdNameLoaded: CompletableAction { let result: Result<String, LoadError> }
struct LdNameLoadedDroppingValue: CompletableAction { let result: Result<String, LoadError> }
struct LdSaved: CompletableAction { let result: Result<Done, LoadError> }

enum LdProfileFixtures {
  static let reducer = Reducer<LdProfileState>()
    .on(LdLoadName.self, start: \.name)
    .on(LdNameLoaded.self, complete: \.name)
    .on(LdNameLoadedDroppingValue.self, complete: \.name, keepingValueOnFailure: false)
    .on(LdSaved.self, complete: \.saving)
}

/// `Reducer.on(_:start:)` and `Reducer.on(_:complete:keepingValueOnFailure:)`.
@Suite struct LoadableReducerTests {
  @Test func startBeginsALoadAndKeepsTheValue() {
    let store = Store(
      initialState: LdProfileState(name: .loaded("ada")), reducer: LdProfileFixtures.reducer)
    store.dispatch(LdLoadName())
    #expect(store.state.name == .loading(keeping: "ada"))
  }

  @Test func startWhileLoadingChangesNothing() {
    let store = Store(
      initialState: LdProfileState(name: .loading(since: LdDates.t0)),
      reducer: LdProfileFixtures.reducer)
    let changes = Recorder<Loadable<String>>()
    let subscription = store.observe(\.name, from: .nextChange) { changes.append($0.new) }
    store.dispatch(LdLoadName())
    subscription.cancel()
    #expect(changes.values.isEmpty)
    #expect(store.state.name.startedAt == LdDates.t0)  // the load in flight is untouched
  }

  @Test func completeFillsOrFailsKeepingTheValue() {
    let store = Store(
      initialState: LdProfileState(name: .loaded("ada")), reducer: LdProfileFixtures.reducer)
    store.dispatch(LdLoadName())
    store.dispatch(LdNameLoaded(result: .failure(LoadError(LdCode.notFound))))
    #expect(store.state.name.isFailed)
    #expect(store.state.name.value == "ada")
    store.dispatch(LdLoadName())
    store.dispatch(LdNameLoaded(result: .success("alan")))
    #expect(store.state.name == .loaded("alan"))
  }

  @Test func theFailureInTheStateIsTheOneTheResponseCarried() {
    let failure = LoadError(LdFailure("not equatable"))
    let store = Store(initialState: LdProfileState(), reducer: LdProfileFixtures.reducer)
    store.dispatch(LdLoadName())
    store.dispatch(LdNameLoaded(result: .failure(failure)))
    #expect(store.state.name.error == failure)
    #expect(store.state.name == .failed(failure))
  }

  @Test func completeCanDropTheValueOnFailure() {
    let store = Store(
      initialState: LdProfileState(name: .loaded("ada")), reducer: LdProfileFixtures.reducer)
    store.dispatch(LdLoadName())
    store.dispatch(LdNameLoadedDroppingValue(result: .failure(LoadError(LdCode.notFound))))
    #expect(store.state.name.isFailed)
    #expect(store.state.name.value == nil)
    #expect(store.state.name == .failed(LdCode.notFound))

    // Success is unaffected by the option.
    store.dispatch(LdLoadName())
    store.dispatch(LdNameLoadedDroppingValue(result: .success("alan")))
    #expect(store.state.name == .loaded("alan"))
  }

  @Test func droppingTheValueOnFailureKeepsWhenTheLoadStarted() {
    let store = Store(
      initialState: LdProfileState(name: .loading(keeping: "ada", since: LdDates.t0)),
      reducer: LdProfileFixtures.reducer)
    store.dispatch(LdNameLoadedDroppingValue(result: .failure(LoadError(LdCode.notFound))))
    #expect(store.state.name.value == nil)
    #expect(store.state.name.finishedAt != nil)
    // The load started at t0; forgetting the value must not rewrite that.
    #expect(store.state.name.startedAt == LdDates.t0)
  }

  @Test func droppingTheValueOnFailureKeepsTheMetadata() {
    var initial = LdProfileState(name: .loading(keeping: "ada"))
    initial.name.metadata[String.self] = "from cache"
    let store = Store(initialState: initial, reducer: LdProfileFixtures.reducer)
    store.dispatch(LdNameLoadedDroppingValue(result: .failure(LoadError(LdCode.notFound))))
    #expect(store.state.name.metadata[String.self] == "from cache")
  }

  @Test func anEmptyResponseCompletesATaskStatus() {
    let store = Store(initialState: LdProfileState(), reducer: LdProfileFixtures.reducer)
    store.dispatch(LdSaved(result: .success(Done())))
    #expect(store.state.saving == .succeeded())
    store.dispatch(LdSaved(result: .failure(LoadError(LdCode.offline(retryIn: 1)))))
    #expect(store.state.saving.isFailed)
    #expect(store.state.saving.value == Done())  // the earlier success, kept
  }

  @Test func loadEffectCancelledByIDDispatchesNothing() async {
    let controller = LdController<Int>()
    let effects = Effects<LdProfileState>()
      .load(LdLoadName.self, as: LdNameLoaded.self, id: "name") { _, _ in
        "user\(try await controller.request(0))"
      }
    let store = Store(
      initialState: LdProfileState(), reducer: LdProfileFixtures.reducer, effects: effects)

    store.dispatch(LdLoadName())
    store.cancelEffects(id: "name")
    await store.settle()
    #expect(store.state.name == .loading())
    #expect(store.errors.totalCount == 0)

    // The next request loads normally.
    store.dispatch(LdLoadName())  // still loading: the reducer ignores it, the effect runs
    controller.succeed(2)
    await store.settle()
    #expect(store.state.name == .loaded("user2"))
  }
}
