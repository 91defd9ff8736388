import Foundation
import Sluice
import SluiceTesting
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/EffectsAndLoadable.md, compiled and run.

enum EffectsArticle {
  struct Search: Equatable, Sendable {
    var query = ""
    var results: [String] = []
  }

  struct QueryChanged: Action { let text: String }
  struct ResultsLoaded: Action { let items: [String] }
  struct SearchClosed: Action {}

  static let reducer = Reducer<Search>()
    .on(QueryChanged.self) { state, action in state.query = action.text }
    .on(ResultsLoaded.self) { state, action in state.results = action.items }

  /// A server that never answers on its own: a sleep on a clock nobody advances, which ends
  /// only when the task is cancelled.
  static let slowServer = ManualClock()

  /// The "any async function of your app" of the search snippets: short queries (fewer than
  /// three characters) wait for the slow server, so they are still in flight when a newer
  /// query or a `SearchClosed` arrives; longer ones answer at once.
  static func search(_ text: String) async throws -> [String] {
    if text.count < 3 { try await slowServer.sleep(for: .seconds(60)) }
    await Task.yield()
    return ["\(text) 1", "\(text) 2"]
  }

  struct SearchClient: DependencyKey {
    var fetch: @Sendable (String) async throws -> [String]
    static let defaultValue = SearchClient(fetch: { try await search($0) })
  }

  struct Profile: Equatable, Sendable {
    var name: Loadable<String> = .idle
  }

  struct LoadProfile: Action { let id: Int }
  struct ProfileLoaded: CompletableAction { let result: Result<String, LoadError> }

  struct NotFound: Error, Equatable {}

  /// The "any async function of your app" of the loading snippets: id 1 is Ada, every other
  /// id is not found.
  static func fetchName(id: Int) async throws -> String {
    await Task.yield()
    guard id == 1 else { throw NotFound() }
    return "Ada"
  }

  struct Directory: Equatable, Sendable {
    var names: [Int: Loadable<String>] = [:]
  }

  struct NamesLoaded: KeyedCompletableAction {
    let results: [Int: Result<String, LoadError>]
  }

  @Suite("Article: Running Effects and Loading Data")
  struct Tests {
    @Test func theLatestQueryWinsAndTheStaleOneNeverReachesTheStore() async {
      let reducer = Reducer<Search>()
        .on(QueryChanged.self) { state, action in state.query = action.text }
        .on(ResultsLoaded.self) { state, action in state.results = action.items }

      let effects = Effects<Search>()
        .on(QueryChanged.self, policy: .latest) { action, context in
          let items = try await search(action.text)  // cancelled when a newer query arrives
          context.dispatch(ResultsLoaded(items: items))
        }
      let store = Store(initialState: Search(), reducer: reducer, effects: effects)
      store.dispatch(QueryChanged(text: "sw"))
      store.dispatch(QueryChanged(text: "swift"))
      await store.settle()  // the effects ended, and what they dispatched was reduced
      // store.state.results holds the results for "swift", never those for "sw"

      #expect(store.state.results == ["swift 1", "swift 2"])
      #expect(store.state.query == "swift")
      #expect(store.effectsInFlight == 0)
      #expect(store.errors.recent.isEmpty, "the cancelled search reports nothing")
    }

    @Test func aDebouncedEffectRunsForTheLastQueryOfABurst() async {
      let debounced = Effects<Search>()
        .on(QueryChanged.self, policy: .debounce(for: .milliseconds(50))) { action, context in
          context.dispatch(ResultsLoaded(items: try await search(action.text)))
        }

      let store = Store(initialState: Search(), reducer: reducer, effects: debounced)
      for text in ["swi", "swif", "swift"] { store.dispatch(QueryChanged(text: text)) }
      await store.settle()
      #expect(store.state.results == ["swift 1", "swift 2"])
    }

    @Test func aStoreRunsWithTheDefaultDependenciesUnlessGivenOthers() async {
      let searchEffects = Effects<Search>()
        .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { action, context in
          let items = try await context.dependencies.searchClient.fetch(action.text)
          context.dispatch(ResultsLoaded(items: items))
        }
      let live = Store(initialState: Search(), reducer: reducer, effects: searchEffects)
      let staging = Store(initialState: Search(), reducer: reducer, effects: searchEffects) {
        $0.searchClient = SearchClient(fetch: { ["staging: \($0)"] })
      }

      // The continuous clock: the debounce waits 300 ms of real time.
      live.dispatch(QueryChanged(text: "swift"))
      staging.dispatch(QueryChanged(text: "swift"))
      await live.settle()
      await staging.settle()
      #expect(live.state.results == ["swift 1", "swift 2"])
      #expect(staging.state.results == ["staging: swift"])
    }

    @Test func anActionCancelsTheRunsOfAnID() async {
      let closable = Effects<Search>()
        .on(QueryChanged.self, policy: .latest, id: "search") { action, context in
          context.dispatch(ResultsLoaded(items: try await search(action.text)))
        }
        .cancel("search", on: SearchClosed.self)
      let store = Store(initialState: Search(), reducer: reducer, effects: closable)
      store.dispatch(QueryChanged(text: "sw"))
      store.dispatch(SearchClosed())  // the search in flight is cancelled
      await store.settle()
      // store.state.results == []

      #expect(store.state.results == [])
      #expect(store.state.query == "sw")
      #expect(store.errors.recent.isEmpty, "a cancelled effect reports nothing")
    }

    @Test func commandsDispatchWhatTheStateCallsFor() async {
      struct SearchAgain: Action {}

      let searchAgain = Effects<Search>()
        .on(SearchAgain.self) { _, context in
          let query = context.state.query
          if !query.isEmpty { context.dispatch(QueryChanged(text: query)) }
        }
      let store = Store(initialState: Search(), reducer: reducer, effects: searchAgain)
      let dispatched = ArticleSupport.Output()
      let tap = store.onAction { action, _ in
        if let query = action as? QueryChanged { dispatched.append(query.text) }
      }
      store.dispatch(SearchAgain())
      await store.settle()
      #expect(dispatched.lines.isEmpty, "an empty query is not searched again")
      store.dispatch(QueryChanged(text: "sw"))
      dispatched.append("--")

      store.dispatch(QueryChanged(text: "swift"))
      store.dispatch(SearchAgain())  // the effect reads the state after SearchAgain was reduced
      await store.settle()

      #expect(dispatched.lines == ["sw", "--", "swift", "swift"])
      #expect(store.state.query == "swift")
      tap.cancel()
    }

    @Test func aLoadEffectFillsTheLoadableOrFailsIt() async {
      let profileReducer = Reducer<Profile>()
        .on(LoadProfile.self, start: \.name)  // idle → loading; a reload keeps the old value
        .on(ProfileLoaded.self, complete: \.name)  // loading → loaded, or failed
      let profileEffects = Effects<Profile>()
        .load(LoadProfile.self, as: ProfileLoaded.self) { request, _ in
          try await fetchName(id: request.id)
        }
      let profile = Store(initialState: Profile(), reducer: profileReducer, effects: profileEffects)
      profile.dispatch(LoadProfile(id: 1))
      await profile.settle()
      let name = profile.state.name.value  // "Ada"

      #expect(name == "Ada")
      #expect(profile.state.name == .loaded("Ada"))
      #expect(profile.errors.recent.isEmpty)

      profile.dispatch(LoadProfile(id: 2))  // fetchName(id: 2) throws
      await profile.settle()
      let failed = profile.state.name.error != nil  // true
      let reported = profile.errors.last?.source  // .action("ProfileLoaded")

      #expect(failed)
      #expect(profile.state.name.value == "Ada", "the latest value survives a failure")
      #expect(profile.state.name.error?.underlying is NotFound)
      #expect(reported == .action("ProfileLoaded"))
      #expect(profile.dispatcher.errors.last?.error is NotFound)
    }

    @Test func aLoadableKeepsItsLatestValueWhileReloadingAndAfterAFailure() {
      struct Offline: Error {}
      var name = Loadable<String>.loaded("Ada")
      name.start()  // reloading: name.value == "Ada", name.isLoading
      name.fail(Offline())  // name.value == "Ada", name.error != nil
      let message = name.error?.description ?? ""  // "Offline()"

      #expect(name.value == "Ada")
      #expect(name.error != nil)
      #expect(message == "Offline()")
    }

    @Test func aKeyedResponseFillsEachKey() {
      let directoryReducer = Reducer<Directory>().on(NamesLoaded.self, complete: \.names)
      let directory = Store(initialState: Directory(), reducer: directoryReducer)
      directory.dispatch(NamesLoaded(results: [1: .success("Ada"), 2: .success("Grace")]))
      let loaded = directory.state.names.loadedValues()  // [1: "Ada", 2: "Grace"]

      #expect(loaded == [1: "Ada", 2: "Grace"])
      directory.dispatch(NamesLoaded(results: [2: .failure(LoadError(NotFound()))]))
      #expect(directory.state.names.loadedValues() == [1: "Ada"])
      #expect(directory.state.names[2]?.value == "Grace", "a failed key keeps its value")
      let failure = (directory.errors.last?.error).map { "\($0)" }
      #expect(failure == "1 of the keyed loads failed: 2")
      #expect(directory.errors.totalCount == 1, "the successful response reported nothing")
    }
  }
}

/// The article's dependency, named as the article names it.
typealias SearchClient = EffectsArticle.SearchClient

extension Dependencies {
  var searchClient: SearchClient {
    get { self[SearchClient.self] }
    set { self[SearchClient.self] = newValue }
  }
}
