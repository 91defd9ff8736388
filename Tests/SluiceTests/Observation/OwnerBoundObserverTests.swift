import Dispatch
import Foundation
import Testing

@testable import Sluice

/// S10: an observer bound to an owner (`observe(owner:)`, JBFlux's
/// `registerObject:forChangeEvents:`) never retains the owner, and is removed when the owner
/// deallocates.
@Suite struct OwnerBoundObserverTests {
  @Test func aWholeStateOwnerBoundObserverRunsWhileTheOwnerLives() {
    let store = ObsFixtures.store()
    let owner = ObsOwner(name: "view")
    let log = ObsRecorder<String>()
    store.observe(owner: owner) { owner, state in log.append("\(owner.name):\(state.a)") }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsNoChange())
    #expect(log.values == ["view:0", "view:1"])
    #expect(store.observerCount == 1)
    withExtendedLifetime(owner) {}
  }

  @Test func aKeyPathOwnerBoundReactorRunsWhileTheOwnerLives() {
    let store = ObsFixtures.store()
    let owner = ObsOwner(name: "cell")
    let log = ObsRecorder<String>()
    store.react(owner: owner) { owner, reaction in
      reaction.on(\.a) { change in log.append("\(owner.name):\(change.old)->\(change.new)") }
    }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetB(value: 1))
    #expect(log.values == ["cell:0->1"])
    #expect(store.observerCount == 1)
    withExtendedLifetime(owner) {}
  }

  @Test func theStoreDoesNotRetainTheOwner() {
    let store = ObsFixtures.store()
    var owner: ObsOwner? = ObsOwner()
    weak let weakOwner = owner
    if let owner {
      store.observe(owner: owner) { _, _ in }
      store.react(owner: owner) { _, _ in }
      store.observe(owner: owner, on: .queue(.global()), from: .nextChange) { _, _ in }
    }
    store.dispatch(ObsSetA(value: 1))
    owner = nil
    #expect(weakOwner == nil)
  }

  @Test func aWholeStateOwnerBoundObserverStopsWhenTheOwnerGoes() {
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    var owner: ObsOwner? = ObsOwner()
    if let owner { store.observe(owner: owner) { _, state in states.append(state.a) } }
    store.dispatch(ObsSetA(value: 1))
    owner = nil
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsSetA(value: 3))
    #expect(states.values == [0, 1])
    #expect(store.observerCount == 0)
  }

  @Test func aQueuedOwnerBoundObserverStopsWhenTheOwnerGoes() async {
    let queue = DispatchQueue(label: "obs.owner.queued")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    var owner: ObsOwner? = ObsOwner()
    queue.suspend()
    if let owner {
      store.observe(owner: owner, on: .queue(queue)) { _, state in states.append(state.a) }
    }
    store.dispatch(ObsSetA(value: 1))
    owner = nil
    queue.resume()
    store.dispatch(ObsSetA(value: 2))
    #expect(await obsDrain(queue))
    #expect(states.values.isEmpty)
    let removed = await obsEventually(
      poke: { store.dispatch(ObsIncrementA()) },
      until: { store.observerCount == 0 })
    #expect(removed)
  }

  @Test func observerCountDropsAsSoonAsTheOwnerOfAWholeStateObserverIsGone() {
    let store = ObsFixtures.store()
    let other = store.observe { _ in }
    var owner: ObsOwner? = ObsOwner()
    if let owner { store.observe(owner: owner) { _, _ in } }
    #expect(store.observerCount == 2)
    owner = nil
    // `observerCount` does not count owner-bound observers whose owner is gone, whether or not
    // the state changed since.
    #expect(store.observerCount == 1)
    withExtendedLifetime(other) {}
  }

  @Test func observerCountDropsAsSoonAsTheOwnerOfAKeyPathReactorIsGone() {
    let store = ObsFixtures.store()
    var owner: ObsOwner? = ObsOwner()
    if let owner { store.react(owner: owner) { _, reaction in reaction.on(\.a) { _ in } } }
    #expect(store.observerCount == 1)
    owner = nil
    // Only other paths change: the observer is never called again, and must not linger.
    store.dispatch(ObsSetB(value: 1))
    store.dispatch(ObsSetInnerX(value: 1))
    #expect(store.observerCount == 0)
  }

  @Test func droppingTheReturnedSubscriptionDoesNotStopAnOwnerBoundObserver() {
    let store = ObsFixtures.store()
    let owner = ObsOwner()
    let states = ObsRecorder<Int>()
    do {
      let subscription = store.observe(owner: owner, from: .nextChange) { _, state in
        states.append(state.a)
      }
      withExtendedLifetime(subscription) {}
    }
    store.dispatch(ObsSetA(value: 1))
    #expect(states.values == [1])
    withExtendedLifetime(owner) {}
  }

  @Test func theReturnedSubscriptionCancelsAnOwnerBoundObserverEarly() {
    let store = ObsFixtures.store()
    let owner = ObsOwner()
    let log = ObsRecorder<String>()
    let whole = store.observe(owner: owner, from: .nextChange) { _, state in
      log.append("whole:\(state.a)")
    }
    let path = store.react(owner: owner) { _, reaction in
      reaction.on(\.a) { change in log.append("a:\(change.new)") }
    }
    store.dispatch(ObsSetA(value: 1))
    whole.cancel()
    path.cancel()
    store.dispatch(ObsSetA(value: 2))
    #expect(log.values == ["whole:1", "a:1"])
    #expect(store.observerCount == 0)
    withExtendedLifetime(owner) {}
  }
}
