import Foundation
import Synchronization
import Testing

@testable import Sluice

struct RegPinged: Action {}

/// One lane, one dispatcher: `store.dispatcher` and `context.dispatcher` are always the same
/// object, so what is registered on it (stores, effects) stays while the lane is in use, and
/// everything goes once the program lets go.
@Suite("Dispatcher identity")
struct DispatcherIdentityTests {
  @Test func aStoresDispatcherIsTheSameObjectAfterEveryEarlierHandleWasDropped() {
    let store = Store(initialState: RegUser(), reducer: RegUser.reducer)
    // The handle of this statement is dropped at its end.
    let first = RegWeak(store.dispatcher)

    #expect(first.object != nil, "the store keeps its dispatcher")
    #expect(first.object === store.dispatcher)
    #expect(store.dispatcher === store.dispatcher)
  }

  @Test func aStoreKeepsTheDispatcherItWasMadeWith() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let store = Store(initialState: RegUser(), dispatcher: dispatcher, reducer: RegUser.reducer)
    let weakDispatcher = RegWeak(dispatcher)

    dispatcher = nil

    #expect(weakDispatcher.object != nil)
    #expect(store.dispatcher === weakDispatcher.object)
  }

  @Test func effectsAddedThroughAStoresDispatcherOutliveTheStatement() async {
    let runs = Atomic<Int>(0)
    let store = Store(initialState: RegUser(), reducer: RegUser.reducer)
    store.dispatcher.addEffects(
      Effects<Void>().on(RegPinged.self) { _, _ in runs.add(1, ordering: .relaxed) })

    store.dispatch(RegPinged())
    await store.settle()

    #expect(runs.load(ordering: .relaxed) == 1)
  }

  @Test func aTypeRegisteredThroughAStoresDispatcherStaysRegistered() throws {
    let store = Store(initialState: RegUser(), reducer: RegUser.reducer)
    store.dispatcher.register(RegMessages.self)

    store.dispatch(RegUserRenamed(name: "Ada"))

    let messages = try #require(store.dispatcher.store(RegMessages.self))
    #expect(messages.state.received == ["renamed Ada"])
    #expect(store.state.name == "Ada")
  }

  @Test func anEffectFindsTheRegisteredStoresThroughItsContext() async {
    let found = Recorder<[String]?>()
    /// Only the returned store is kept: the dispatcher is not.
    func makeStore() -> Store<RegUser> {
      let dispatcher = Dispatcher(reporter: .ignoring)
      dispatcher.register(RegMessages.self)
      return Store(
        initialState: RegUser(), dispatcher: dispatcher, reducer: RegUser.reducer,
        effects: Effects<RegUser>().on(RegUserRenamed.self) { _, context in
          found.append(context.dispatcher.store(RegMessages.self)?.state.received)
        })
    }
    let store = makeStore()

    store.dispatch(RegUserRenamed(name: "Ada"))
    await store.settle()

    #expect(found.values == [["renamed Ada"]])
  }

  @Test func theDispatcherItsRegisteredStoresAndTheLaneGoWhenTheProgramLetsGo() async {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    var store: Store<RegUser>? = Store(
      initialState: RegUser(), dispatcher: dispatcher, reducer: RegUser.reducer)
    let runs = Atomic<Int>(0)
    dispatcher?.addEffects(
      Effects<Void>().on(RegPinged.self) { _, _ in runs.add(1, ordering: .relaxed) })
    let weakDispatcher = RegWeak(dispatcher)
    let weakRegistered = RegWeak(dispatcher?.register(RegMessages.self))
    let weakLane = RegWeak(dispatcher?.lane)
    let weakStore = RegWeak(store)

    dispatcher = nil

    // The unregistered store keeps the lane in use: its dispatcher, registry and effects stay.
    #expect(weakDispatcher.object != nil)
    #expect(store?.dispatcher === weakDispatcher.object)
    #expect(store?.dispatcher.store(RegMessages.self) === weakRegistered.object)
    store?.dispatch(RegPinged())
    await store?.settle()
    #expect(runs.load(ordering: .relaxed) == 1)

    store = nil

    #expect(weakStore.object == nil)
    #expect(weakDispatcher.object == nil, "registered stores do not keep their dispatcher")
    #expect(weakRegistered.object == nil, "registered stores go with their dispatcher")
    // The effect's task lets go of its context (and the lane) just after it ended.
    #expect(await obsEventually { weakLane.object == nil })
  }

  @Test func aDispatcherWithOnlyRegisteredStoresGoesWhenTheProgramDropsIt() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let weakRegistered = RegWeak(dispatcher?.register(RegUser.self))
    let weakExisting = RegWeak<Store<RegMessages>>()
    if let dispatcher {
      let existing = Store(
        initialState: RegMessages(), dispatcher: dispatcher, reducer: RegMessages.reducer)
      dispatcher.register(existing)
      weakExisting.object = existing
    }
    let weakLane = RegWeak(dispatcher?.lane)
    #expect(weakExisting.object != nil, "the registry keeps a store registered after its making")

    dispatcher = nil

    #expect(weakDispatcher.object == nil)
    #expect(weakRegistered.object == nil)
    #expect(weakExisting.object == nil)
    #expect(weakLane.object == nil)
  }

  @Test func aRegisteredStoreTheProgramStillHoldsOutlivesItsDispatcherUnregistered() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let registered = dispatcher?.register(RegUser.self)

    dispatcher = nil

    #expect(weakDispatcher.object == nil, "a registered store does not keep its dispatcher")
    #expect(registered?.dispatcher.store(RegUser.self) == nil, "the registry went with it")
    #expect(registered?.dispatcher === registered?.dispatcher)
    registered?.dispatch(RegUserRenamed(name: "Ada"))
    #expect(registered?.state.name == "Ada")
  }

  @Test func unregisteringAStoreTheProgramHoldsKeepsTheDispatcherWithIt() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let registered = dispatcher?.register(RegUser.self)

    dispatcher?.unregister(RegUser.self)
    dispatcher = nil

    #expect(weakDispatcher.object != nil, "an unregistered store keeps its dispatcher")
    #expect(registered?.dispatcher === weakDispatcher.object)
  }
}
