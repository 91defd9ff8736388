import Testing

@testable import Sluice

/// When released, registers a tap on `store` (on the thread releasing it: the lane's, when the
/// store sweeps a cancelled tap out), recording the actions it sees in `seen`.
final class ObsTapsOnRelease: Sendable {
  let store: Store<ObsState>
  let registered: ObsRecorder<Subscription>
  let seen: ObsRecorder<String>

  init(store: Store<ObsState>, registered: ObsRecorder<Subscription>, seen: ObsRecorder<String>) {
    self.store = store
    self.registered = registered
    self.seen = seen
  }

  deinit {
    let seen = self.seen
    registered.append(store.onAction { action, _ in seen.append("\(type(of: action))") })
  }
}

/// Unicore's `onAction`: a debug tap that sees every action and the state before the reducer,
/// and is not called on subscription.
@Suite struct OnActionTests {
  @Test func onActionIsNotCalledOnSubscribe() {
    let store = ObsFixtures.store(ObsState(a: 3))
    let taps = ObsRecorder<Int>()
    let subscription = store.onAction { _, before in taps.append(before.a) }
    #expect(taps.values.isEmpty)
    withExtendedLifetime(subscription) {}
  }

  @Test func onActionSeesEachActionWithTheStateBeforeTheReducer() {
    let store = ObsFixtures.store()
    let taps = ObsRecorder<String>()
    let subscription = store.onAction { action, before in
      switch action {
      case let set as ObsSetA: taps.append("setA(\(set.value)) before a=\(before.a)")
      case is ObsNoChange: taps.append("noChange before a=\(before.a)")
      default: taps.append("\(type(of: action)) before a=\(before.a)")
      }
    }
    store.dispatch(ObsSetA(value: 5))
    store.dispatch(ObsSetA(value: 7))
    store.dispatch(ObsNoChange())
    #expect(
      taps.values == [
        "setA(5) before a=0", "setA(7) before a=5", "noChange before a=7",
      ])
    #expect(store.state.a == 7)
    withExtendedLifetime(subscription) {}
  }

  @Test func onActionSeesActionsTheStoreDoesNotHandle() {
    let store = ObsFixtures.store()
    let taps = ObsRecorder<String>()
    let subscription = store.onAction { action, _ in taps.append("\(type(of: action))") }
    store.dispatch(ObsUnhandled())
    #expect(taps.values == ["ObsUnhandled"])
    withExtendedLifetime(subscription) {}
  }

  @Test func onActionRunsBeforeTheObserversOfTheSameAction() {
    let store = ObsFixtures.store()
    let log = ObsRecorder<String>()
    let observer = store.observe(from: .nextChange) { state in log.append("observer a=\(state.a)") }
    let tap = store.onAction { _, before in log.append("tap a=\(before.a)") }
    store.dispatch(ObsSetA(value: 1))
    #expect(log.values == ["tap a=0", "observer a=1"])
    withExtendedLifetime((observer, tap)) {}
  }

  @Test func aCancelledTapIsNotCalledAgain() {
    let store = ObsFixtures.store()
    let taps = ObsRecorder<Int>()
    let subscription = store.onAction { _, before in taps.append(before.a) }
    store.dispatch(ObsSetA(value: 1))
    subscription.cancel()
    store.dispatch(ObsSetA(value: 2))
    #expect(taps.values == [0])
  }

  /// A tap whose body holds the only reference to something that registers a tap when
  /// released: the store releases it after it took the cancelled tap out (a registration in
  /// the middle of that removal was a simultaneous access to the store's list of taps).
  @Test func aTapReleasedOnTheLaneMayRegisterAnother() {
    let store = ObsFixtures.store()
    let registered = ObsRecorder<Subscription>()
    let seen = ObsRecorder<String>()
    func tapHolding() -> Subscription {
      let callsBack = ObsTapsOnRelease(store: store, registered: registered, seen: seen)
      return store.onAction { _, _ in withExtendedLifetime(callsBack) {} }
    }
    let tap = tapHolding()
    store.dispatch(ObsSetA(value: 1))
    tap.cancel()
    store.dispatch(ObsSetA(value: 2))
    #expect(registered.count == 1)
    #expect(seen.values == ["ObsSetA"])
    for subscription in registered.values { subscription.cancel() }
  }
}
