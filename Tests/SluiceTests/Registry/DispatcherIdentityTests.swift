import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

struct RegPinged: Action {}

/// Runs `onDeinit` when it goes.
final class RegTripwire: Sendable {
  let onDeinit: @Sendable () -> Void

  init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

/// A state holding a tripwire.
struct RegTrapped: Sendable {
  var tripwire: RegTripwire
}

/// What a test holds, for a thread to let go of.
final class RegHeld: @unchecked Sendable {
  // @unchecked Sendable: `objects` is only touched under `lock`.
  private let lock = NSLock()
  private var contents: [AnyObject] = []

  var objects: [AnyObject] {
    get { lock.withLock { contents } }
    set {
      let old = lock.withLock {
        defer { contents = newValue }
        return contents
      }
      _ = old  // Released after the lock.
    }
  }
}

/// A counter state, for a third store on a lane.
struct RegCount: Sendable {
  var count = 0
  static let reducer = Reducer<RegCount>().on(RegPinged.self) { state, _ in state.count += 1 }
}

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
    // The registry keeps the store's core; the store object is made again when needed.
    let weakRegistered = RegWeak(dispatcher?.register(RegMessages.self).core)
    let weakLane = RegWeak(dispatcher?.lane)
    let weakStore = RegWeak(store)

    dispatcher = nil

    // The unregistered store keeps the lane in use: its dispatcher, registry and effects stay.
    #expect(weakDispatcher.object != nil)
    #expect(store?.dispatcher === weakDispatcher.object)
    #expect(store?.dispatcher.store(RegMessages.self)?.core === weakRegistered.object)
    store?.dispatch(RegPinged())
    await store?.settle()
    #expect(runs.load(ordering: .relaxed) == 1)

    store = nil

    #expect(weakStore.object == nil)
    #expect(weakDispatcher.object == nil, "nothing holds the dispatcher")
    #expect(weakRegistered.object == nil, "registered stores go with their dispatcher")
    // The effect's task lets go of its context (and the lane) just after it ended.
    #expect(await obsEventually { weakLane.object == nil })
  }

  @Test func aDispatcherWithOnlyRegisteredStoresGoesWhenTheProgramDropsIt() {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let weakRegistered = RegWeak(dispatcher?.register(RegUser.self).core)
    let weakExisting = RegWeak<StoreCore<RegMessages>>()
    if let dispatcher {
      let existing = Store(
        initialState: RegMessages(), dispatcher: dispatcher, reducer: RegMessages.reducer)
      dispatcher.register(existing)
      weakExisting.object = existing.core
    }
    let weakLane = RegWeak(dispatcher?.lane)
    #expect(weakExisting.object != nil, "the registry keeps a store registered after its making")

    dispatcher = nil

    #expect(weakDispatcher.object == nil)
    #expect(weakRegistered.object == nil)
    #expect(weakExisting.object == nil)
    #expect(weakLane.object == nil)
  }

  @Test func aRegisteredStoreTheProgramHoldsKeepsTheOneDispatcherOfItsLane() throws {
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let weakDispatcher = RegWeak(dispatcher)
    let id = try #require(dispatcher.map(ObjectIdentifier.init))
    let made = try #require(dispatcher?.register(RegUser.self))
    let existing = Store(
      initialState: RegMessages(), dispatcher: dispatcher, reducer: RegMessages.reducer)
    dispatcher?.register(existing)
    var other: Store<RegCount>? = Store(
      initialState: RegCount(), dispatcher: dispatcher, reducer: RegCount.reducer)

    dispatcher = nil
    other = nil

    #expect(weakDispatcher.object != nil, "a store on the lane keeps its one dispatcher")
    #expect(ObjectIdentifier(made.dispatcher) == id)
    #expect(made.dispatcher === weakDispatcher.object)
    #expect(existing.dispatcher === weakDispatcher.object)
    #expect(made.dispatcher.store(RegUser.self) === made, "the registry stays with it")
    #expect(existing.dispatcher.store(RegMessages.self) === existing)
    made.dispatch(RegUserRenamed(name: "Ada"))
    #expect(made.state.name == "Ada")
    #expect(existing.state.received == ["renamed Ada"])
    #expect(other == nil)
  }

  @Test func aRegisteredStoreAStatementDroppedIsFoundAgainWithItsState() throws {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let weakMade = RegWeak(dispatcher.register(RegUser.self))
    dispatcher.dispatch(RegUserRenamed(name: "Ada"))

    let found = try #require(dispatcher.store(RegUser.self))

    #expect(found.state.name == "Ada", "the registry keeps the store's core")
    #expect(found.dispatcher === dispatcher)
    #expect(dispatcher.store(RegUser.self) === found, "one store while anybody holds it")
    _ = weakMade
  }

  @Test func theDispatcherRegisteredStoresEffectsAndLaneGoOnceTheLastStoreGoes() async throws {
    let gone = Recorder<String>()
    var dispatcher: Dispatcher? = Dispatcher(reporter: .ignoring)
    let runs = Atomic<Int>(0)
    dispatcher?.addEffects(
      Effects<Void>().on(RegPinged.self) {
        [tripwire = RegTripwire { gone.append("dispatcher effect") }] _, _ in
        _ = tripwire
        runs.add(1, ordering: .relaxed)
      })
    var existing: Store<RegTrapped>? = Store(
      initialState: RegTrapped(tripwire: RegTripwire { gone.append("registered state") }),
      dispatcher: dispatcher,
      effects: Effects<RegTrapped>().on(RegPinged.self) {
        [tripwire = RegTripwire { gone.append("store effect") }] _, _ in
        _ = tripwire
        runs.add(1, ordering: .relaxed)
      })
    if let existing { dispatcher?.register(existing) }
    var made = dispatcher?.register(RegUser.self)
    let weakDispatcher = RegWeak(dispatcher)
    let weakMade = RegWeak(made)
    let weakMadeCore = RegWeak(made?.core)
    let weakExisting = RegWeak(existing)
    let weakLane = RegWeak(dispatcher?.lane)

    dispatcher = nil
    existing = nil

    // The registered store the program holds keeps the lane in use: its dispatcher, the
    // registry and every effect stay.
    #expect(weakDispatcher.object != nil)
    #expect(made?.dispatcher.store(RegTrapped.self) != nil)
    made?.dispatch(RegPinged())
    await made?.settle()
    #expect(runs.load(ordering: .relaxed) == 2)
    #expect(gone.values.isEmpty)

    made = nil

    #expect(weakMade.object == nil)
    #expect(weakExisting.object == nil)
    #expect(weakDispatcher.object == nil, "nothing holds the dispatcher")
    // The effects' tasks let go of their context (and the lane) just after they ended.
    #expect(await obsEventually { weakLane.object == nil })
    #expect(weakMadeCore.object == nil)
    #expect(
      Set(gone.values) == ["dispatcher effect", "store effect", "registered state"],
      "the registered stores and the effects went with it")
  }

  /// A registered store's state and effect whose `deinit` dispatches on the lane, asks for its
  /// dispatcher, registers and cancels a subscription on the lane, while the dispatcher is torn
  /// down: nothing is released under a Sluice lock, so nothing deadlocks.
  @Test func registeredStoresWhoseDeinitCallsBackIntoTheLaneAreTornDown() async {
    let calledBack = Recorder<String>()
    let held = RegHeld()
    /// Everything is left in `held` only: the program's last references.
    func setUp() async {
      let dispatcher = Dispatcher(reporter: .ignoring)
      let user = dispatcher.register(RegUser.self)
      let context = Guarded<EffectContext<RegUser>?>(nil)
      user.addEffects(
        Effects<RegUser>().on(RegKeepContext.self) { _, value in context.withLock { $0 = value } })
      user.dispatch(RegKeepContext())
      await user.settle()
      let observed = user.observe { _ in }
      let callBack = { @Sendable (name: String) in
        let context = context.withLock { $0 }
        context?.dispatch(RegUserRenamed(name: name))
        context?.dispatcher.register(RegMessages.self)
        _ = context?.dispatcher.store(RegUser.self)
        observed.cancel()
        calledBack.append(name)
      }
      let effect = RegTripwire { callBack("effect") }
      let trapped = Store(
        initialState: RegTrapped(tripwire: RegTripwire { callBack("state") }),
        dispatcher: dispatcher,
        effects: Effects<RegTrapped>().on(RegPinged.self) { _, _ in _ = effect })
      dispatcher.register(trapped)
      held.objects = [dispatcher, user, trapped]
    }
    await setUp()
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in held.objects = [] }

    #expect(finished, "tearing the dispatcher down deadlocked")
    #expect(Set(calledBack.values) == ["effect", "state"])
  }

  @Test func unregisteredStoresWhoseDeinitUsesTheLiveDispatcherDoNotDeadlock() async {
    let calledBack = Recorder<Bool>()
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      let dispatcher = Dispatcher(reporter: .ignoring)
      let made = dispatcher.register(RegUser.self)
      let trapped = Store(
        initialState: RegTrapped(
          tripwire: RegTripwire {
            dispatcher.dispatch(RegUserRenamed(name: "Ada"))
            dispatcher.register(RegMessages.self)
            calledBack.append(dispatcher.store(RegTrapped.self) == nil)
          }),
        dispatcher: dispatcher)
      dispatcher.register(trapped)
      dispatcher.unregister(RegTrapped.self)
      _ = consume trapped
      calledBack.append(made.state.name == "Ada")
      calledBack.append(dispatcher.store(RegMessages.self) != nil)
    }
    #expect(finished, "unregistering deadlocked")
    #expect(calledBack.values == [true, true, true])
  }

  @Test func reactionsToARegisteredStoreOutliveTheObjectTheyWereAttachedThrough() throws {
    let dispatcher = Dispatcher(reporter: .ignoring)
    dispatcher.register(RegUser.self)
    let names = Recorder<String?>()
    let found = Recorder<Bool>()
    let multi = dispatcher.react(to: [try #require(dispatcher.store(RegUser.self))]) { reaction in
      names.append(reaction.store.dispatcher.store(RegUser.self)?.state.name)
    }
    let single = try #require(dispatcher.store(RegUser.self)).react { reaction in
      found.append(reaction.store != nil)
    }

    dispatcher.dispatch(RegUserRenamed(name: "Ada"))

    // Called once when attached (to learn its queries), then for the change.
    #expect(names.values == [nil, "Ada"], "the reaction still reaches the registered store")
    #expect(found.values == [true, true])
    multi.cancel()
    single.cancel()
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

/// Starts the effect that hands its context to the test.
private struct RegKeepContext: Action {}
