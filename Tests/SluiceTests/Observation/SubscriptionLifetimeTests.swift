import Dispatch
import Foundation
import Testing

@testable import Sluice

/// S10: a `Subscription` cancels on deinit, a `SubscriptionBag` cancels all it holds on deinit,
/// and no subscription keeps a store alive.
@Suite struct SubscriptionLifetimeTests {
  @Test func aSubscriptionCancelsWhenItIsDeinitialized() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Int>()
    do {
      let whole = store.observe { states.append($0.a) }
      let path = store.observe(\.a) { changes.append($0.new) }
      store.dispatch(ObsSetA(value: 1))
      #expect(store.observerCount == 2)
      withExtendedLifetime((whole, path)) {}
    }
    store.dispatch(ObsSetA(value: 2))
    #expect(states.values == [0, 1])
    #expect(changes.values == [0, 1])
    #expect(store.observerCount == 0)
  }

  @Test func aSubscriptionThatIsNotKeptStopsAtOnce() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    _ = store.observe { states.append($0.a) }
    store.dispatch(ObsSetA(value: 1))
    // It received the current value while `observe` ran, and nothing after.
    #expect(states.values == [0])
    #expect(store.observerCount == 0)
  }

  @Test func aQueuedObserverStopsWhenItsSubscriptionIsDeinitialized() async {
    let queue = DispatchQueue(label: "obs.lifetime.queued")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    queue.suspend()
    do {
      let subscription = store.observe(on: .queue(queue)) { states.append($0.a) }
      store.dispatch(ObsSetA(value: 1))
      withExtendedLifetime(subscription) {}
    }
    store.dispatch(ObsSetA(value: 2))
    queue.resume()
    #expect(await obsDrain(queue))
    #expect(states.values.isEmpty)
  }

  @Test func aCustomSubscriptionRunsItsCancellationOnce() {
    let runs = ObsRecorder<Int>()
    do {
      let subscription = Subscription { runs.append(1) }
      #expect(!subscription.isCancelled)
      subscription.cancel()
      subscription.cancel()
      #expect(subscription.isCancelled)
    }
    #expect(runs.count == 1)
    do {
      let subscription = Subscription { runs.append(2) }
      withExtendedLifetime(subscription) {}
    }
    #expect(runs.values == [1, 2])
  }

  @Test func aBagCancelsEverythingItHoldsWhenItIsDeinitialized() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    weak var weakBag: SubscriptionBag?
    do {
      let bag = SubscriptionBag()
      weakBag = bag
      store.observe { log.append("whole:\($0.a)") }.store(in: bag)
      store.observe(\.a, from: .nextChange) { log.append("a:\($0.new)") }.store(in: bag)
      store.onAction { _, before in log.append("tap:\(before.a)") }.store(in: bag)
      #expect(bag.count == 3)
      store.dispatch(ObsSetA(value: 1))
    }
    #expect(weakBag == nil)
    store.dispatch(ObsSetA(value: 2))
    #expect(log.values == ["whole:0", "tap:0", "whole:1", "a:1"])
    #expect(store.observerCount == 0)
  }

  @Test func cancelAllEmptiesTheBagAndStopsItsObservers() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let bag = SubscriptionBag()
    store.observe(from: .nextChange) { states.append($0.a) }.store(in: bag)
    store.observe(from: .nextChange) { states.append($0.a * 100) }.store(in: bag)
    store.dispatch(ObsSetA(value: 1))
    bag.cancelAll()
    #expect(bag.count == 0)
    store.dispatch(ObsSetA(value: 2))
    #expect(states.values == [1, 100])
    #expect(store.observerCount == 0)

    store.observe(from: .nextChange) { states.append($0.a * 1_000) }.store(in: bag)
    store.dispatch(ObsSetA(value: 3))
    #expect(states.values == [1, 100, 3_000])
  }

  @Test func aStoreWithObserversIsDeinitializedWhenItsLastReferenceGoes() {
    weak var weakStore: Store<ObsState>?
    let bag = SubscriptionBag()
    let owner = ObsOwner()
    var subscriptions: [Subscription] = []
    do {
      let store = ObsFixtures.store()
      weakStore = store
      subscriptions.append(store.observe { _ in })
      subscriptions.append(store.observe(\.a) { _ in })
      subscriptions.append(store.observe(\.inner.x, on: .queue(.global())) { _ in })
      subscriptions.append(store.onAction { _, _ in })
      store.observe(from: .nextChange) { _ in }.store(in: bag)
      store.observe(owner: owner) { _, _ in }
      store.dispatch(ObsSetA(value: 1))
      #expect(store.observerCount == 5)
    }
    #expect(weakStore == nil)
    // Cancelling subscriptions of a store that is gone is safe.
    for subscription in subscriptions { subscription.cancel() }
    bag.cancelAll()
    #expect(subscriptions.allSatisfy { $0.isCancelled })
    withExtendedLifetime(owner) {}
  }

  @Test func observersThatCaptureTheStoreWeaklyOrItsDispatcherDoNotKeepItAlive() {
    weak var weakStore: Store<ObsState>?
    var subscriptions: [Subscription] = []
    do {
      let store = ObsFixtures.store()
      weakStore = store
      let dispatcher = store.dispatcher
      subscriptions.append(
        store.observe(\.a) { [weak store] change in
          if change.new == 1 { store?.dispatch(ObsSetB(value: 1)) }
        })
      subscriptions.append(
        store.observe(\.b) { change in
          if change.new == 1 { dispatcher.dispatch(ObsSetInnerX(value: 1)) }
        })
      store.dispatch(ObsSetA(value: 1))
      #expect(store.state == ObsState(a: 1, b: 1, inner: ObsInner(x: 1)))
    }
    #expect(weakStore == nil)
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aStoreOnASharedDispatcherGoesAndItsObserversStopWhileTheDispatcherLives() {
    let dispatcher = Dispatcher(label: "obs.lifetime.shared")
    let survivor = ObsFixtures.store(dispatcher: dispatcher)
    let gone = ObsRecorder<Int>()
    let kept = ObsRecorder<Int>()
    weak var weakStore: Store<ObsState>?
    var subscription: Subscription?
    do {
      let store = ObsFixtures.store(dispatcher: dispatcher)
      weakStore = store
      subscription = store.observe(from: .nextChange) { gone.append($0.a) }
      dispatcher.dispatch(ObsSetA(value: 1))
    }
    let keptSubscription = survivor.observe(from: .nextChange) { kept.append($0.a) }
    #expect(weakStore == nil)
    dispatcher.dispatch(ObsSetA(value: 2))
    #expect(gone.values == [1])
    #expect(kept.values == [2])
    subscription?.cancel()
    withExtendedLifetime(keptSubscription) {}
  }
}
