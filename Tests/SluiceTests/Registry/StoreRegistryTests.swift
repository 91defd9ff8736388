import Testing

@testable import Sluice

struct RegUser: StoreDefinition, Equatable {
  var name: String?
  static let initialState = RegUser()
  static let reducer = Reducer<RegUser>()
    .on(RegUserRenamed.self) { state, action in state.name = action.name }
}

/// A store definition whose state is not `Equatable` (the other `register` overload).
struct RegMessages: StoreDefinition {
  var received: [String] = []
  static let initialState = RegMessages()
  static let reducer = Reducer<RegMessages>()
    .on(RegUserRenamed.self) { state, action in state.received.append("renamed \(action.name)") }
}

struct RegUserRenamed: Action { let name: String }

@Suite("Store registry")
struct StoreRegistryTests {
  @Test func registerCreatesAStoreRetrievableByItsType() throws {
    let dispatcher = Dispatcher(reporter: .ignoring)

    let registered = dispatcher.register(RegUser.self)
    let found = try #require(dispatcher.store(RegUser.self))

    #expect(found === registered)
    #expect(dispatcher.store(RegUser.self) === registered, "the same instance, every time")
    #expect(registered.dispatcher === dispatcher)
    #expect(registered.state == RegUser.initialState)
  }

  @Test func aRegisteredStoreReducesTheDispatchersActions() throws {
    let dispatcher = Dispatcher(reporter: .ignoring)
    dispatcher.register(RegUser.self)
    dispatcher.register(RegMessages.self)

    dispatcher.dispatch(RegUserRenamed(name: "Ada"))

    #expect(try #require(dispatcher.store(RegUser.self)).state.name == "Ada")
    #expect(try #require(dispatcher.store(RegMessages.self)).state.received == ["renamed Ada"])
  }

  @Test func aTypeThatWasNeverRegisteredHasNoStore() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    dispatcher.register(RegUser.self)

    #expect(dispatcher.store(RegMessages.self) == nil)
    #expect(
      Dispatcher(reporter: .ignoring).store(RegUser.self) == nil, "registries are per dispatcher")
  }

  @Test func registeringATypeTwiceIsReportedAndKeepsTheFirstStore() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let first = dispatcher.register(RegUser.self)
    first.dispatch(RegUserRenamed(name: "Ada"))

    let second = dispatcher.register(RegUser.self)

    #expect(second === first)
    #expect(dispatcher.store(RegUser.self) === first)
    #expect(second.state.name == "Ada", "the first store was kept, not replaced")
    #expect(log.issues.map(\.kind) == [.duplicateRegistration])
  }

  @Test func registeringAnExistingStoreMakesItRetrievableAndTwiceIsReported() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let store = Store(
      initialState: RegUser(name: "Grace"), dispatcher: dispatcher, reducer: RegUser.reducer)

    dispatcher.register(store)
    #expect(dispatcher.store(RegUser.self) === store)
    #expect(log.issues.isEmpty)

    dispatcher.register(RegUser.self)
    #expect(dispatcher.store(RegUser.self) === store)
    #expect(log.issues.map(\.kind) == [.duplicateRegistration])
  }

  @Test func aRegisteredStoreLivesAsLongAsItsDispatcherAndIsReleasedWithIt() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    // Registered without keeping the returned store: only the dispatcher holds it (its core).
    let weakStore = RegWeak(dispatcher?.register(RegUser.self).core)

    dispatcher?.dispatch(RegUserRenamed(name: "Ada"))
    #expect(weakStore.object?.state.name == "Ada", "the dispatcher keeps its store alive")
    #expect(dispatcher?.store(RegUser.self)?.state.name == "Ada")

    dispatcher = nil

    #expect(weakDispatcher.object == nil, "nothing holds the dispatcher")
    #expect(weakStore.object == nil, "a registered store is released with its dispatcher")
  }

  @Test func aRegisteredStoreWithObserversAndMiddlewareIsReleasedWithItsDispatcher() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let weakStore = RegWeak<StoreCore<RegUser>>()
    let names = RegLog<String?>()
    var subscriptions: [Subscription] = []
    if let store = dispatcher?.register(RegUser.self) {
      weakStore.object = store.core
      subscriptions.append(store.observe(\.name, from: .nextChange) { names.append($0.new) })
      subscriptions.append(store.use(.before { _, _ in }))
    }

    dispatcher?.dispatch(RegUserRenamed(name: "Ada"))
    dispatcher = nil

    #expect(names.all == ["Ada"])
    #expect(weakDispatcher.object == nil)
    #expect(weakStore.object == nil, "subscriptions never keep a store alive")
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test func unregisterForgetsTheStore() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let weakStore = RegWeak(dispatcher.register(RegUser.self).core)

    dispatcher.unregister(RegUser.self)

    #expect(dispatcher.store(RegUser.self) == nil)
    #expect(weakStore.object == nil)
    dispatcher.dispatch(RegUserRenamed(name: "Ada"))
    #expect(dispatcher.register(RegUser.self).state.name == nil, "a new store starts afresh")
  }
}
