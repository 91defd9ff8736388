import Sluice
import SluiceTesting
import Testing

private struct Other: Equatable, Sendable { var pings = 0 }
/// Handled only by the `Other` store.
private struct OtherPing: Action {}

private let otherReducer = Reducer<Other>().on(OtherPing.self) { state, _ in state.pings += 1 }

/// `TestStore(store)`: a test store over an existing store.
@Suite struct TestStoreWrappingTests {
  @Test func seesOnlyWhatIsProcessedFromNowOn() async {
    let clock = ManualClock()
    let inner = Store(
      initialState: Counter(), reducer: counterReducer, effects: counterEffects(clock: clock))
    inner.dispatch(Increment())
    inner.dispatch(SetText(text: "before"))
    let store = TestStore(inner)
    #expect(store.state == Counter(count: 1, text: "before"))
    await store.send(Increment()) { $0.count = 2 }
    await store.send(Load(to: 9)) { $0.value.start() }
    await store.receive(Loaded.self) { $0.value.fill(9) }
    await store.finish()
  }

  @Test func actionsDispatchedOnTheStoreDirectlyAreReceived() async {
    let inner = Store(initialState: Counter(), reducer: counterReducer)
    let store = TestStore(inner)
    inner.dispatch(Increment())
    await store.receive(Increment.self) { $0.count = 1 }
    await store.send(Increment()) { $0.count = 2 }
  }

  @Test func actionsAnObserverDispatchesDuringSendAreReceived() async {
    let inner = Store(initialState: Counter(), reducer: counterReducer)
    let subscription = inner.observe(\.count, from: .nextChange) { [weak inner] change in
      inner?.dispatch(SetText(text: "count \(change.new)"))
    }
    let store = TestStore(inner)
    await store.send(Increment()) { $0.count = 1 }
    await store.receive(SetText.self) { $0.text = "count 1" }
    subscription.cancel()
  }

  @Test func aCommittedTransactionIsReceivedAsOneStep() async {
    let dispatcher = Dispatcher()
    let inner = Store(initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer)
    let store = TestStore(inner)
    let outcome = await dispatcher.transaction("edit") { transaction in
      try transaction.update(inner) { $0.count = 5 }
      transaction.dispatch(SetText(text: "tx"))
    }
    guard case .committed = outcome else {
      Issue.record("the transaction did not commit: \(outcome)")
      return
    }
    // The actions inside are not recorded one by one: the store saw one TransactionCommitted.
    await store.receive(TransactionCommitted.self) {
      $0.count = 5
      $0.text = "tx"
    }
    await store.finish()
  }

  @Test func sharedDispatcherLeavesTheOtherStoresActionsToThem() async {
    // As in TCA, a test store asserts only its own store's actions: an action that only another
    // store on the dispatcher handles is not "received".
    let dispatcher = Dispatcher()
    let other = Store(initialState: Other(), dispatcher: dispatcher, reducer: otherReducer)
    let inner = Store(initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer)
    let store = TestStore(inner)
    other.dispatch(OtherPing())
    #expect(other.state.pings == 1)
    // Actions the test store sends reach the other store too.
    await store.send(OtherPing())
    #expect(other.state.pings == 2)
    await store.send(Increment()) { $0.count = 1 }
  }

  @Test func sharedDispatcherStillReceivesActionsNoStoreHandles() async {
    // An action no store handles is the test store's to assert (an effect's analytics event).
    let dispatcher = Dispatcher()
    _ = Store(initialState: Other(), dispatcher: dispatcher, reducer: otherReducer)
    let store = TestStore(
      Store(initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer))
    dispatcher.dispatch(Noop())
    let failures = await expectFailures("Must handle 1 received action before sending") {
      await store.send(Increment()) { $0.count = 1 }
    }
    #expect(failures.first?.text.contains("Noop()") == true)
  }

  @Test func sharedDispatcherWithLenientStore() async {
    let dispatcher = Dispatcher()
    let other = Store(initialState: Other(), dispatcher: dispatcher, reducer: otherReducer)
    let store = TestStore(
      Store(initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer))
    store.exhaustivity = .off
    other.dispatch(OtherPing())
    await store.send(Increment()) { $0.count = 1 }
    other.dispatch(OtherPing())
  }
}
