import Foundation
import Testing

@testable import Sluice

/// A keyed response with a plain payload, for the dictionary helpers.
struct LdScoresLoaded: KeyedCompletableAction {
  let results: [String: Result<Int, LoadError>]
}

@Suite struct KeyedLoadableTests {
  @Test func startLoadingStartsNewKeysFromIdleAndKeepsOldValues() {
    var scores: [String: Loadable<Int>] = ["a": .loaded(1)]
    scores.startLoading(["a", "b"], at: LdDates.t1)
    #expect(scores["a"] == .loading(keeping: 1))
    #expect(scores["a"]?.value == 1)
    #expect(scores["b"] == .loading())
    #expect(scores["a"]?.startedAt == LdDates.t1)
    #expect(scores["b"]?.startedAt == LdDates.t1)
    #expect(scores.count == 2)
  }

  @Test func completeWithResultsFillsAndFailsOnlyThoseKeys() {
    var scores: [String: Loadable<Int>] = ["untouched": .loaded(9)]
    scores.startLoading(["a", "b"])
    let results: [String: Result<Int, LdCode>] = ["a": .success(1), "b": .failure(.notFound)]
    scores.complete(with: results, at: LdDates.t2)
    #expect(scores["a"] == .loaded(1))
    #expect(scores["b"]?.isFailed == true)
    #expect(scores["b"]?.error == LoadError(LdCode.notFound))
    #expect(scores["untouched"] == .loaded(9))
    #expect(scores["a"]?.finishedAt == LdDates.t2)
    #expect(scores["b"]?.finishedAt == LdDates.t2)
  }

  @Test func aKeyedResponseWithFailedKeysReportsThemOnTheErrorChannels() throws {
    struct Scores: Equatable, Sendable { var byName: [String: Loadable<Int>] = [:] }
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: Scores(), dispatcher: dispatcher,
      reducer: Reducer<Scores>().on(LdScoresLoaded.self, complete: \.byName))
    store.dispatch(LdScoresLoaded(results: ["a": .success(1), "b": .success(2)]))
    #expect(store.errors.totalCount == 0)
    store.dispatch(
      LdScoresLoaded(results: [
        "a": .success(1), "b": .failure(LoadError(LdCode.notFound)),
        "c": .failure(LoadError(LdCode.notFound)),
      ]))
    let event = try #require(store.errors.last)
    let failure = try #require(event.error as? KeyedLoadFailure<String>)
    #expect(failure.failures.keys.sorted() == ["b", "c"])
    #expect(failure.failures["b"] == LoadError(LdCode.notFound))
    #expect("\(failure)" == "2 of the keyed loads failed: b, c")
    #expect(store.errors.totalCount == 1)
    #expect(dispatcher.errors.totalCount == 1)
    #expect(store.state.byName["a"] == .loaded(1))
    #expect(store.state.byName["b"]?.isFailed == true)
  }

  @Test func completeCreatesKeysThatWereNeverStarted() {
    var scores: [String: Loadable<Int>] = [:]
    scores.complete(with: ["new": Result<Int, LoadError>.success(3)])
    #expect(scores == ["new": .loaded(3)])
  }

  @Test func aFailedKeyKeepsItsValueByDefault() {
    var scores: [String: Loadable<Int>] = ["a": .loaded(1)]
    scores.startLoading(["a"])
    scores.complete(with: ["a": Result<Int, LdCode>.failure(.offline(retryIn: 1))])
    #expect(scores["a"]?.isFailed == true)
    #expect(scores["a"]?.value == 1)
    #expect(scores["a"]?.error == LoadError(LdCode.offline(retryIn: 1)))
  }

  @Test func aFailedKeyDropsItsValueWhenAsked() {
    var scores: [String: Loadable<Int>] = ["a": .loaded(1), "b": .loaded(2)]
    scores.startLoading(["a", "b"])
    scores.complete(
      with: ["a": Result<Int, LdCode>.failure(.notFound), "b": .success(20)],
      keepingValueOnFailure: false)
    #expect(scores["a"]?.isFailed == true)
    #expect(scores["a"]?.value == nil)
    #expect(scores["a"]?.error == LoadError(LdCode.notFound))
    #expect(scores["a"] == .failed(LdCode.notFound))
    #expect(scores["b"] == .loaded(20))
  }

  @Test func droppingTheValueOnFailureKeepsWhenTheLoadStarted() {
    var scores: [String: Loadable<Int>] = ["a": .loaded(1)]
    scores.startLoading(["a"], at: LdDates.t1)
    scores.complete(
      with: ["a": Result<Int, LdCode>.failure(.notFound)], keepingValueOnFailure: false,
      at: LdDates.t2)
    #expect(scores["a"]?.finishedAt == LdDates.t2)
    // The load started at t1; forgetting the value must not rewrite that.
    #expect(scores["a"]?.startedAt == LdDates.t1)
  }

  @Test func completeWithAKeyedAction() {
    var scores: [String: Loadable<Int>] = ["a": .loaded(1), "c": .loaded(3)]
    scores.startLoading(["a", "b"])
    let failure = LoadError(LdFailure("gone"))
    scores.complete(
      with: LdScoresLoaded(results: ["a": .failure(failure), "b": .success(2)]), at: LdDates.t3)
    #expect(scores["a"]?.error == failure)
    #expect(scores["a"]?.value == 1)  // kept
    #expect(scores["b"] == .loaded(2))
    #expect(scores["c"] == .loaded(3))
    #expect(scores["b"]?.finishedAt == LdDates.t3)
  }

  @Test func loadedValuesLeaveOutIdleLoadingAndFailedKeys() {
    var scores: [String: Loadable<Int>] = [
      "idle": .idle, "loaded": .loaded(1), "reloading": .loaded(2), "failed": .loaded(3),
    ]
    scores.startLoading(["reloading"])
    scores.complete(with: ["failed": Result<Int, LdCode>.failure(.notFound)])
    #expect(scores.loadedValues() == ["loaded": 1])
    #expect(scores["reloading"]?.value == 2)
    #expect(scores["failed"]?.value == 3)
  }

  @Test func loadedValuesKeepALoadedNil() {
    // "Nobody has this number" is an answer, not a missing load.
    let contacts: [String: Loadable<MiniContact?>] = [
      "000": .loaded(nil), "111": .loaded(MiniPhoneBook.ada), "999": .loading(),
    ]
    let loaded = contacts.loadedValues()
    #expect(loaded.count == 2)
    #expect(loaded.keys.contains("000"))
    #expect(loaded["111"] == .some(MiniPhoneBook.ada))
  }

  @Test func aKeyIsLoadingWhileItsLoadIsInFlight() {
    var scores: [String: Loadable<Int>] = [:]
    #expect(!scores.values.contains { $0.isLoading })
    scores["a"] = .loaded(1)
    scores["b"] = .failed(LdCode.notFound)
    scores["c"] = .idle
    #expect(!scores.values.contains { $0.isLoading })
    scores.startLoading(["d"])
    #expect(scores.values.contains { $0.isLoading })
    scores.complete(with: ["d": Result<Int, LoadError>.success(4)])
    #expect(!scores.values.contains { $0.isLoading })
  }

  @Test func startingAKeyThatIsLoadingIsNoChange() {
    var scores: [String: Loadable<Int>] = [:]
    scores.startLoading(["a"], at: LdDates.t0)
    let before = scores
    scores.startLoading(["a"], at: LdDates.t1)
    #expect(scores == before)
  }

  // MARK: - In a store (Mini-Swift's RequestContactLoadedAction)

  @Test func reducerMergesAKeyedResponseGroupedByPhoneNumber() async {
    let gate = LdController<Int>()
    let store = MiniContactsFixtures.store(gate: gate)
    let seen = Recorder<[String: Loadable<MiniContact?>]>()
    let subscription = store.observe { state in seen.append(state.contactsByPhone) }

    store.dispatch(MiniRequestContactsAction(phones: ["111", "000", "555"]))
    #expect(store.state.contactsByPhone.values.contains { $0.isLoading })
    #expect(store.state.contactsByPhone.count == 3)
    gate.succeed(0)
    await store.settle()

    let contacts = store.state.contactsByPhone
    #expect(contacts["111"] == .loaded(MiniPhoneBook.ada))
    #expect(contacts["000"] == .loaded(nil))
    #expect(contacts["555"]?.error == LoadError(LdCode.notFound))
    #expect(!contacts.values.contains { $0.isLoading })

    // A second request merges into the first one's results.
    store.dispatch(MiniRequestContactsAction(phones: ["222", "111"]))
    gate.succeed(0)
    await store.settle()
    subscription.cancel()

    let merged = store.state.contactsByPhone
    #expect(merged["222"] == .loaded(MiniPhoneBook.alan))
    #expect(merged["111"] == .loaded(MiniPhoneBook.ada))
    #expect(merged["555"]?.isFailed == true)
    #expect(merged.loadedValues().count == 3)

    let loading = Loadable<MiniContact?>.loading()
    #expect(
      seen.values == [
        [:],
        ["111": loading, "000": loading, "555": loading],
        [
          "111": .loaded(MiniPhoneBook.ada), "000": .loaded(nil),
          "555": .failed(LdCode.notFound),
        ],
        [
          "111": .loading(keeping: MiniPhoneBook.ada), "000": .loaded(nil),
          "555": .failed(LdCode.notFound),
          "222": loading,
        ],
        merged,
      ])
  }

  @Test func reducerCompletesAKeyedActionDirectly() {
    let store = Store(
      initialState: [String: Loadable<Int>](),
      reducer: Reducer<[String: Loadable<Int>]>().on(LdScoresLoaded.self, complete: \.self))
    store.dispatch(LdScoresLoaded(results: ["a": .success(1)]))
    store.dispatch(LdScoresLoaded(results: ["b": .failure(LoadError(LdCode.notFound))]))
    #expect(store.state["a"] == .loaded(1))
    #expect(store.state["b"] == .failed(LdCode.notFound))
  }
}

@Suite struct KeyedLoadEffectTests {
  // `Effects.load(_:asKeyed:keys:)` loads every key and dispatches one keyed response; a key
  // that fails is failed in the dictionary while the others are loaded.
  @Test func aKeyedLoadFillsEveryKeyFromOneResponse() async {
    let book = MiniPhoneBook()
    // The loads wait until the test has seen the keys loading: the effect never outruns it.
    let gate = LdGate()
    let effects = Effects<MiniContactsState>()
      .load(
        MiniRequestContactsAction.self, asKeyed: MiniRequestContactLoadedAction.self,
        keys: \.phones
      ) { phone, _ in
        await gate.wait()
        return try book.contact(for: phone)
      }
    let store = Store(
      initialState: MiniContactsState(), reducer: MiniContactsFixtures.reducer, effects: effects)
    store.dispatch(MiniRequestContactsAction(phones: ["111", "000", "999"]))
    #expect(store.state.contactsByPhone["111"]?.isLoading == true)
    await gate.open()
    await store.settle()
    let contacts = store.state.contactsByPhone
    #expect(contacts["111"]?.value == .some(MiniPhoneBook.ada))
    #expect(contacts["000"]?.isLoaded == true)
    #expect(contacts["000"]?.value == .some(nil))
    #expect(contacts["999"]?.error == LoadError(LdCode.notFound))
  }
}

/// Holds back whoever waits on it until it is opened, once and for all.
actor LdGate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    guard !isOpen else { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }
}
