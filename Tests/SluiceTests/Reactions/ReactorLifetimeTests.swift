import Foundation
import Testing

@testable import Sluice

/// What Flask's reactors got wrong, fixed: detaching relied on a debug-only path, a reactor kept
/// its owner alive, a substance shared by several reactors ran handlers more than once, and
/// reactions were keyed by the state type's *name*.
@Suite struct ReactorLifetimeTests {
  // MARK: - Owners

  @Test func anOwnerBoundReactorDetachesWhenItsOwnerGoes() {
    let store = FlxFixtures.app()
    let heard = Recorder<Int>()
    var owner: TxOwner? = TxOwner()
    weak let weakOwner = owner
    if let owner {
      store.react(owner: owner) { _, reaction in
        reaction.on(\.counter) { heard.append($0.new) }
      }
    }
    #expect(store.observerCount == 1)
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    owner = nil
    #expect(weakOwner == nil, "the reactor kept its owner alive")
    #expect(store.observerCount == 0)
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == [1])
  }

  @Test func anOwnerBoundReactorOverSeveralStoresDetachesFromEachWhenItsOwnerGoes() {
    let dispatcher = Dispatcher()
    let a = FlxFixtures.app(dispatcher)
    let b = FlxFixtures.app(dispatcher)
    let heard = Recorder<String>()
    var owner: TxOwner? = TxOwner()
    weak let weakOwner = owner
    if let owner {
      dispatcher.react(to: [a, b], owner: owner) { owner, reaction in
        reaction.at(a)?.on(\.counter) { heard.append("\(owner.name) a \($0.new)") }
        reaction.at(b)?.on(\.counter) { heard.append("\(owner.name) b \($0.new)") }
      }
    }
    #expect(a.observerCount == 1)
    #expect(b.observerCount == 1)
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    owner = nil
    #expect(weakOwner == nil)
    #expect(a.observerCount == 0)
    #expect(b.observerCount == 0)
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == ["owner a 1", "owner b 1"])
  }

  @Test func anOwnerThatKeepsItsOwnReactorSubscriptionIsStillFreed() {
    final class Screen: Sendable {
      let subscription = ObsBox<Subscription?>(nil)
    }
    let store = FlxFixtures.app()
    var screen: Screen? = Screen()
    weak let weakScreen = screen
    if let screen {
      screen.subscription.value = store.react(owner: screen) { screen, reaction in
        reaction.on(\.title) { _ in _ = screen.subscription }
      }
    }
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    screen = nil
    #expect(weakScreen == nil, "a reactor retained its owner")
    #expect(store.observerCount == 0)
  }

  @Test func aReactorDoesNotKeepItsStoreAlive() {
    var store: Store<FlxAppState>? = FlxFixtures.app()
    weak let weakStore = store
    let subscription = store?.react { reaction in reaction.on(\.counter) { _ in } }
    store = nil
    #expect(weakStore == nil)
    subscription?.cancel()
  }

  @Test func cancellingOrDroppingAReactorSubscriptionDetachesIt() {
    let store = FlxFixtures.app()
    let heard = Recorder<String>()
    let kept = store.react { reaction in reaction.on(\.counter) { heard.append("kept \($0.new)") } }
    var dropped: Subscription? = store.react { reaction in
      reaction.on(\.counter) { heard.append("dropped \($0.new)") }
    }
    #expect(store.observerCount == 2)
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    kept.cancel()
    dropped = nil
    #expect(dropped == nil)
    #expect(store.observerCount == 0)
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == ["kept 1", "dropped 1"])
  }

  @Test func aReactorCanCancelItselfFromInsideItsHandler() {
    let store = FlxFixtures.app()
    let heard = Recorder<Int>()
    let box = ObsBox<Subscription?>(nil)
    box.value = store.react { reaction in
      reaction.on(\.counter) { change in
        heard.append(change.new)
        box.value?.cancel()
      }
    }
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == [1])
    #expect(store.observerCount == 0)
  }

  // MARK: - Shared stores

  @Test func aStoreSharedByManyReactorsRunsEachHandlerOncePerChange() {
    let dispatcher = Dispatcher()
    let shared = FlxFixtures.app(dispatcher)
    let other = FlxFixtures.app(dispatcher)
    let reactors = 5
    let handlerCalls = (0..<reactors).map { _ in TxCount() }
    let bodyCalls = (0..<reactors).map { _ in TxCount() }
    var subscriptions: [Subscription] = []
    for index in 0..<reactors {
      let handler = handlerCalls[index]
      let body = bodyCalls[index]
      if index.isMultiple(of: 2) {
        subscriptions.append(
          shared.react { reaction in
            handler.increment()
            reaction.on(\.counter) { _ in body.increment() }
            reaction.on(\.title) { _ in body.increment() }
          })
      } else {
        // Reactors mixing several substances, the shared one among them.
        subscriptions.append(
          dispatcher.react(to: [shared, other]) { reaction in
            guard let reaction = reaction.at(shared) else { return }
            handler.increment()
            reaction.on(\.counter) { _ in body.increment() }
            reaction.on(\.title) { _ in body.increment() }
          })
      }
    }
    let atAttach = handlerCalls.map(\.value)
    dispatcher.transaction { tx in
      try tx.update(shared) { $0.counter = 1 }
      try tx.update(shared) { $0.title = "one" }
      try tx.update(other) { $0.counter = 1 }
    }
    #expect(zip(handlerCalls, atAttach).allSatisfy { $0.value == $1 + 1 })
    #expect(bodyCalls.allSatisfy { $0.value == 2 })
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aStoreNamedTwiceInOneMultiReactorIsReactedToOnce() {
    let dispatcher = Dispatcher()
    let store = FlxFixtures.app(dispatcher)
    let calls = TxCount()
    let subscription = dispatcher.react(to: [store, store, store]) { reaction in
      reaction.at(store)?.on(\.counter) { _ in calls.increment() }
    }
    #expect(store.observerCount == 1)
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(calls.value == 1)
    subscription.cancel()
  }

  @Test func aMultiReactorHearsATransactionOverTwoStoresOncePerStore() {
    let dispatcher = Dispatcher()
    let a = FlxFixtures.app(dispatcher)
    let b = FlxFixtures.app(dispatcher)
    let heard = Recorder<String>()
    let subscription = dispatcher.react(to: [a, b]) { reaction in
      let name = reaction.store === a ? "a" : "b"
      heard.append("\(name) lock=\(reaction.lock == nil ? "none" : "held")")
    }
    let atAttach = heard.count
    dispatcher.transaction { tx in
      try tx.update(a) { $0.text = "x" }
      try tx.update(b) { $0.text = "y" }
    }
    #expect(Array(heard.values.dropFirst(atAttach)) == ["a lock=none", "b lock=none"])
    subscription.cancel()
  }

  @Test func aStoreOfAnotherDispatcherIsIgnoredByAMultiReactorAndReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let mine = FlxFixtures.app(dispatcher)
    let foreign = FlxFixtures.app()
    let subscription = dispatcher.react(to: [mine, foreign]) { _ in }
    #expect(issues.kinds == [.foreignStore])
    #expect(mine.observerCount == 1)
    #expect(foreign.observerCount == 0)
    subscription.cancel()
  }

  // MARK: - Type identity

  enum ModuleA {
    struct AppState: Equatable, Codable, Sendable { var title = "" }
    struct Login: Action {}
    static let reducer = Reducer<AppState>().on(Login.self) { state, _ in state.title = "A" }
  }

  enum ModuleB {
    struct AppState: Equatable, Codable, Sendable { var title = "" }
    struct Login: Action {}
    static let reducer = Reducer<AppState>().on(Login.self) { state, _ in state.title = "B" }
  }

  @Test func storesWhoseStateTypesShareANameNeverShareReactions() {
    let dispatcher = Dispatcher()
    let a = Store(
      initialState: ModuleA.AppState(), dispatcher: dispatcher, reducer: ModuleA.reducer)
    let b = Store(
      initialState: ModuleB.AppState(), dispatcher: dispatcher, reducer: ModuleB.reducer)
    let heard = Recorder<String>()
    let subscriptions = [
      a.react { reaction in
        reaction.on(\.title) { heard.append("A key path \($0.new)") }
        reaction.on("title") { heard.append("A dotted \($0.new)") }
      },
      b.react { reaction in
        reaction.on(\.title) { heard.append("B key path \($0.new)") }
        reaction.on("title") { heard.append("B dotted \($0.new)") }
      },
    ]
    dispatcher.dispatch(ModuleA.Login())
    #expect(heard.values == ["A key path A", "A dotted \"A\""])
    #expect(b.state.title == "")
    dispatcher.transaction { tx in try tx.update(b) { $0.title = "only B" } }
    #expect(heard.values.dropFirst(2) == ["B key path only B", "B dotted \"only B\""])
    #expect(a.state.title == "A")
    dispatcher.dispatch(ModuleB.Login())
    #expect(heard.values.dropFirst(4) == ["B key path B", "B dotted \"B\""])
    withExtendedLifetime(subscriptions) {}
  }

  // MARK: - What a reaction carries

  @Test func aReactionNamesItsStoreAndTheNewState() {
    let store = FlxFixtures.app()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on(\.counter) { change in
        heard.append(
          "same store: \(reaction.store === store), new: \(reaction.newState?.counter ?? -1), "
            + "change: \(change.new)")
      }
    }
    store.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == ["same store: true, new: 1, change: 1"])
    subscription.cancel()
  }

  @Test func aReactionQueryAddedLaterStartsFromTheValueItFirstSaw() {
    let store = FlxFixtures.app()
    let heard = Recorder<String>()
    let askForTitle = ObsBox(false)
    let subscription = store.react { reaction in
      reaction.on(\.counter) { heard.append("counter \($0.new)") }
      if askForTitle.value {
        reaction.on(\.title) { heard.append("title \($0.old)->\($0.new)") }
      }
    }
    askForTitle.value = true
    store.dispatch(FlxEnvMixers.Login(payload: [:]))  // counter 1; title query registered
    store.dispatch(FlxEnvMixers.Logout())  // title "signed" -> ""
    #expect(heard.values == ["counter 1", "title signed->"])
    subscription.cancel()
  }
}
