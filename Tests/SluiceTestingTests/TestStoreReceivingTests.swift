import Sluice
import SluiceTesting
import Testing

/// The actions of a feed, as an enum: two cases carry a payload of the same type.
private enum Feed: Action, Equatable {
  case refresh
  case loaded(Int)
  case renamed(String)
  case failed(String)
  case paged(page: Int)
}

private let feedReducer = Reducer<Counter>()
  .on(Feed.self) { state, action in
    switch action {
    case .refresh: state.waiting = true
    case .loaded(let count):
      state.waiting = false
      state.count = count
    case .renamed(let text), .failed(let text): state.text = text
    case .paged(let page): state.results = ["page \(page)"]
    }
  }

/// `refresh` loads 42, then names the feed.
private let feedEffects = Effects<Counter>()
  .on(Feed.self) { action, context in
    guard action == .refresh else { return }
    context.dispatch(Feed.loaded(42))
    context.dispatch(Feed.renamed("news"))
    context.dispatch(Feed.paged(page: 2))
  }

private func makeFeedStore() -> TestStore<Counter> {
  TestStore(initialState: Counter(), reducer: feedReducer, effects: feedEffects)
}

/// `receive` by predicate, by enum case, and its default timeout.
@Suite struct TestStoreReceivingTests {
  // MARK: - By predicate

  @Test func receiveAnActionSatisfyingAPredicate() async {
    let store = makeStore()
    await store.send(Ping(value: 1))
    await store.receive(where: { $0 is Pong }, assert: { $0.results = ["pong 1"] })
    await store.finish()
  }

  @Test func aLenientStoreSkipsTheActionsBeforeTheOneThatSatisfiesThePredicate() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(Pings(values: [1, 2, 3]))
    await store.receive(
      where: { ($0 as? Pong)?.value == 2 }, assert: { $0.results = ["pong 1", "pong 2"] })
  }

  @Test func anActionThatDoesNotSatisfyThePredicateFails() async throws {
    let store = makeStore()
    await store.send(Ping(value: 4))
    let line = #line + 4
    let failures = await expectFailures(
      "Expected to receive an action satisfying the predicate, but received Pong"
    ) {
      await store.receive(where: { ($0 as? Pong)?.value == 5 })
    }
    let failure = try #require(failures.first)
    #expect(failure.text.contains("Pong(value: 4)"))
    #expect(failure.line == line)
    await store.finish()
  }

  @Test func aPredicateNothingSatisfiesFailsWithoutWaiting() async {
    let store = makeStore()
    store.timeout = .seconds(30)
    await store.send(Increment()) { $0.count = 1 }
    await expectFailures(
      "Expected to receive an action satisfying the predicate, but no action was received and "
        + "no effect is running"
    ) {
      await store.receive(where: { $0 is Pong })
    }
  }

  // MARK: - By enum case

  @Test func receiveEnumActionsByCase() async {
    let store = makeFeedStore()
    await store.send(Feed.refresh) { $0.waiting = true }
    await store.receive(Feed.loaded) {
      $0.waiting = false
      $0.count = 42
    }
    await store.receive(Feed.renamed) { $0.text = "news" }
    // A labeled associated value too.
    await store.receive(Feed.paged) { $0.results = ["page 2"] }
    await store.finish()
  }

  @Test func receiveEnumActionsByValue() async {
    let store = makeFeedStore()
    await store.send(Feed.refresh) { $0.waiting = true }
    await store.receive(Feed.loaded(42)) {
      $0.waiting = false
      $0.count = 42
    }
    await store.receive(Feed.renamed("news")) { $0.text = "news" }
    await store.receive(Feed.paged(page: 2)) { $0.results = ["page 2"] }
    await store.finish()
  }

  @Test func anotherCaseWithAPayloadOfTheSameTypeDoesNotMatch() async throws {
    let store = makeFeedStore()
    await store.send(Feed.refresh) { $0.waiting = true }
    await store.receive(Feed.loaded) {
      $0.waiting = false
      $0.count = 42
    }
    let failures = await expectFailures(
      "Expected to receive Feed of the case given, but received Feed"
    ) {
      await store.receive(Feed.failed) { $0.text = "news" }
    }
    #expect(try #require(failures.first).text.contains(".renamed(\"news\")"))
    await store.receive(Feed.paged) { $0.results = ["page 2"] }
    await store.finish()
  }

  @Test func aLenientStoreSkipsOtherCases() async {
    let store = makeFeedStore()
    store.exhaustivity = .off
    await store.send(Feed.refresh)
    await store.receive(Feed.renamed) { $0.text = "news" }
    #expect(store.state.count == 42)
  }

  // MARK: - Timeout

  @Test func theDefaultTimeoutIsOneSecond() async {
    let store = makeStore()
    #expect(store.timeout == .seconds(1))
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    let duration = await elapsed {
      await expectFailures("Expected to receive Waited within 1.0 seconds, but none arrived") {
        await store.receive(Waited.self)
      }
    }
    #expect(duration >= .seconds(1))
    store.skipInFlightEffects()
  }
}
