import Clocks
import Sluice
import SluiceTesting
import Testing

/// A search whose actions are one enum, each case handled once with its effect beside it.
private struct Search: Equatable, Sendable {
  var query = ""
  var results: [String] = []
}

private enum SearchAction: Action, Equatable {
  case queryChanged(String)
  case resultsLoaded([String])
  case cleared

  var queryChanged: String? { if case .queryChanged(let text) = self { text } else { nil } }
  var resultsLoaded: [String]? { if case .resultsLoaded(let items) = self { items } else { nil } }
}

private let searchReducer = Reducer<Search>()
  .on(\SearchAction.queryChanged, policy: .debounce(for: .milliseconds(300))) { state, text in
    state.query = text
  } effect: { text, context in
    context.dispatch(SearchAction.resultsLoaded(["\(text) 1", "\(text) 2"]))
  }
  .on(\SearchAction.resultsLoaded) { state, items in state.results = items }
  .on(SearchAction.cleared) { state in state = Search() }

/// An exhaustive `TestStore` over enum actions: every case's state change and every action its
/// effect dispatches is asserted, and nothing else happens.
@Suite struct TestStoreEnumActionTests {
  @Test func eachCaseAndItsEffectAreAssertedExhaustively() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search(), reducer: searchReducer) { $0.clock = clock }

    await store.send(SearchAction.queryChanged("s")) { $0.query = "s" }
    await clock.advance(by: .milliseconds(200))
    await store.send(SearchAction.queryChanged("sw")) { $0.query = "sw" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(SearchAction.resultsLoaded(["sw 1", "sw 2"])) {
      $0.results = ["sw 1", "sw 2"]
    }
    await store.send(SearchAction.cleared) { $0 = Search() }
    await store.finish()
  }

  @Test func aCaseWithoutAnEffectStartsNone() async {
    let store = TestStore(initialState: Search(), reducer: searchReducer) {
      $0.clock = TestClock()
    }
    await store.send(SearchAction.resultsLoaded(["a"])) { $0.results = ["a"] }
    await store.send(SearchAction.cleared) { $0.results = [] }
    #expect(store.store.effectsInFlight == 0)
  }
}
