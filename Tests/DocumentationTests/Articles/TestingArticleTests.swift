import Clocks
import Foundation
import Sluice
import SluiceTesting
import Testing
import XCTest

// The Swift snippets of Sources/SluiceTesting/SluiceTesting.docc/Testing.md, compiled and run.

enum TestingArticle {
  struct Counter: Equatable, Sendable {
    var count = 0
    var fact: Loadable<String> = .idle
  }

  struct Increment: Action {}
  struct FactRequested: Action {}
  struct FactLoaded: CompletableAction { let result: Result<String, LoadError> }

  /// The app's `async` function of the article.
  static func fact(about count: Int) async throws -> String {
    await Task.yield()
    return count == 1 ? "1 is the loneliest number" : "\(count) is a number"
  }

  static let reducer = Reducer<Counter>()
    .on(Increment.self) { state, _ in state.count += 1 }
    .on(FactRequested.self, start: \.fact)
    .on(FactLoaded.self, complete: \.fact)
  static let effects = Effects<Counter>()
    .load(FactRequested.self, as: FactLoaded.self) { _, context in
      try await fact(about: context.state.count)
    }

  struct Search: Equatable, Sendable {
    var query = ""
    var results: [String] = []
  }

  struct QueryChanged: Action { let text: String }
  struct ResultsLoaded: Action, Equatable { let items: [String] }

  static let searchReducer = Reducer<Search>()
    .on(QueryChanged.self) { state, action in state.query = action.text }
    .on(ResultsLoaded.self) { state, action in state.results = action.items }

  static let searchEffects = makeSearchEffects()

  /// The search effects of the article, as it writes them.
  static func makeSearchEffects() -> Effects<Search> {
    let searchEffects = Effects<Search>()
      .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { action, context in
        let items = try await context.dependencies.searchClient.fetch(action.text)
        context.dispatch(ResultsLoaded(items: items))
      }
    return searchEffects
  }

  struct News: Equatable, Sendable {
    var isLoading = false
    var items: [String] = []
  }

  enum Feed: Action {
    case refresh
    case loaded([String])
  }

  static let newsReducer = Reducer<News>()
    .on(Feed.self) { state, action in
      switch action {
      case .refresh: state.isLoading = true
      case .loaded(let items):
        state.isLoading = false
        state.items = items
      }
    }
  static let newsEffects = Effects<News>()
    .on(Feed.self) { action, context in
      if case .refresh = action { context.dispatch(Feed.loaded(["news"])) }
    }

  struct Offline: Error, Equatable {}

  @Suite("Article: Testing Stores")
  struct Tests {
    @Test func theReducerAndEffectsOfTheArticle() async {
      let reducer = Reducer<Counter>()
        .on(Increment.self) { state, _ in state.count += 1 }
        .on(FactRequested.self, start: \.fact)
        .on(FactLoaded.self, complete: \.fact)
      let effects = Effects<Counter>()
        .load(FactRequested.self, as: FactLoaded.self) { _, context in
          try await fact(about: context.state.count)
        }

      let store = Store(initialState: Counter(count: 1), reducer: reducer, effects: effects)
      store.dispatch(FactRequested())
      await store.settle()
      #expect(store.state.fact.value == "1 is the loneliest number")
    }

    // The example of the SluiceTesting landing page (SluiceTesting.md).
    @Test func countsUp() async {
      let store = TestStore(initialState: Counter(), reducer: reducer)
      await store.send(Increment()) { $0.count = 1 }
      await store.send(Increment()) { $0.count = 2 }
    }

    @Test func loadsAFactAboutTheCount() async {
      let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
      await store.send(Increment()) { $0.count = 1 }
      await store.send(FactRequested()) { $0.fact.start() }
      await store.receive(FactLoaded.self) { $0.fact.fill("1 is the loneliest number") }
    }

    @Test func wrongAssertionsFailWhereTheyAreWritten() async {
      let failures = ArticleSupport.Output()
      await withKnownIssue {
        let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
        await store.send(Increment()) { $0.count = 2 }

        await store.send(FactRequested()) { $0.fact.start() }
        await store.finish()  // fails: FactLoaded was received and not asserted
      } matching: { issue in
        failures.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
        return true
      }

      // The messages of the article, where the types are top-level (here they are namespaced),
      // and the diff's unchanged lines start with a space instead of a figure space.
      let lines = failures.lines.map {
        $0.replacingOccurrences(of: "TestingArticle.", with: "")
          .replacingOccurrences(of: "\u{2007}", with: " ")
      }
      #expect(
        lines == [
          """
          A state change does not match the expectation after sending Increment: …

            Counter(
          −   count: 2,
          +   count: 1,
              fact: Loadable(status: .idle)
            )

          (Expected: −, Actual: +)
          """,
          """
          1 received action left unasserted:

            • FactLoaded(
                result: .success("1 is the loneliest number")
              )
          """,
        ])
    }

    @Test func aNonExhaustiveStoreChecksOnlyWhatTheTestNames() async {
      let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
      store.exhaustivity = .off
      await store.send(Increment())  // the change is not checked
      await store.send(FactRequested())
      await store.receive(FactLoaded.self) { $0.fact = .loaded("1 is the loneliest number") }

      #expect(store.state.count == 1)
      #expect(store.state.fact == .loaded("1 is the loneliest number"))
    }

    @Test func searchesOnceTheTypingStops() async {
      let clock = ManualClock()
      let store = TestStore(
        initialState: Search(), reducer: searchReducer, effects: searchEffects
      ) {
        $0.searchClient = SearchClient(fetch: { text in ["\(text) 1"] })
        $0.clock = clock
      }
      await store.send(QueryChanged(text: "sw")) { $0.query = "sw" }
      await clock.advance(by: .milliseconds(200))
      await store.send(QueryChanged(text: "swift")) { $0.query = "swift" }
      await clock.advance(by: .milliseconds(300))
      await store.receive(ResultsLoaded(items: ["swift 1"])) { $0.results = ["swift 1"] }
    }

    @Test func receivesAnEnumActionByCase() async {
      let store = TestStore(initialState: News(), reducer: newsReducer, effects: newsEffects)
      await store.send(Feed.refresh) { $0.isLoading = true }
      await store.receive(Feed.loaded) {
        $0.isLoading = false
        $0.items = ["news"]
      }
      await store.finish()
    }

    @Test func receivesAnActionByPredicate() async {
      let store = TestStore(initialState: Counter(count: 1), reducer: reducer, effects: effects)
      await store.send(FactRequested()) { $0.fact.start() }
      await store.receive(
        where: { $0 is FactLoaded }, assert: { $0.fact.fill("1 is the loneliest number") })
      await store.finish()
    }

    @Test func awaitsTheTaskOfASend() async {
      let store = TestStore(initialState: Counter(count: 1), reducer: reducer, effects: effects)
      let task = await store.send(FactRequested()) { $0.fact.start() }
      await task.finish()
      await store.receive(FactLoaded.self) { $0.fact.fill("1 is the loneliest number") }
    }

    @Test func cancelsTheTaskOfASend() async {
      let clock = ManualClock()
      let store = TestStore(
        initialState: Search(), reducer: searchReducer, effects: searchEffects
      ) {
        $0.searchClient = SearchClient(fetch: { text in ["\(text) 1"] })
        $0.clock = clock
      }
      let search = await store.send(QueryChanged(text: "sw")) { $0.query = "sw" }
      await search.cancel()  // the debounced search never runs
      await clock.advance(by: .milliseconds(300))
      #expect(search.isCancelled)
      #expect(store.state.results.isEmpty)
    }

    @Test func assertsAFailedLoadWithAnEquatableError() async {
      let effects = Effects<Counter>()
        .load(FactRequested.self, as: FactLoaded.self) { _, _ in throw Offline() }
      let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
      await store.send(FactRequested()) { $0.fact.start() }
      await store.receive(FactLoaded.self) { $0.fact.fail(Offline()) }
      await store.finish()
    }

    @Test func debouncesOnATestClock() async {
      let clock = TestClock()
      let store = Store(initialState: Search(), reducer: searchReducer, effects: searchEffects) {
        $0.searchClient = SearchClient(fetch: { text in ["\(text) 1"] })
        $0.clock = clock
      }
      store.dispatch(QueryChanged(text: "swift"))
      await clock.advance(by: .milliseconds(300))

      await store.settle()
      #expect(store.state.results == ["swift 1"])
    }

    @Test func anActionRecorderCountsTheActionsAStoreSees() {
      let recorder = ActionRecorder<Counter>()
      let store = Store(
        initialState: Counter(), reducer: reducer, middleware: [recorder.middleware])
      store.dispatch(Increment())
      store.dispatch(Increment())
      #expect(recorder.actions(of: Increment.self).count == 2)

      #expect(store.state.count == 2)
      #expect(recorder.actions(of: FactRequested.self).isEmpty)
    }
  }
}

// XCTest on Linux discovers only top-level test classes: this one is outside the namespace, and
// sees the article's types through private aliases.
private typealias Counter = TestingArticle.Counter
private typealias Increment = TestingArticle.Increment
private let reducer = TestingArticle.reducer

final class CounterTests: XCTestCase {
  func testIncrement() async {
    let store = TestStore(initialState: Counter(), reducer: reducer)
    await store.send(Increment()) { $0.count = 1 }
    XCTAssertEqual(store.state.count, 1)
  }
}
