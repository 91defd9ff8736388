import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// What a store's effects captured is released outside the lane's lock: a captured object whose
/// `deinit` cancels a subscription on the same lane, or dispatches to it, never hangs the lane,
/// whether the lane is idle or another thread holds it when the store goes.
@Suite struct RegistrationReleaseTests {
  struct Tally: Equatable, Sendable {
    var count = 0
  }

  struct Bump: Action {}
  struct Trigger: Action {}
  struct Hold: Action {}

  /// Runs `onDeinit` when the effect closure that captured it is released.
  final class Canary: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
  }

  /// What a canary does when it goes.
  enum Reaction {
    case cancelsSubscription
    case dispatches
  }

  static let tallyReducer = Reducer<Tally>().on(Bump.self) { state, _ in state.count += 1 }

  /// A store on `dispatcher` whose effect captured a canary that reacts on `other` when the
  /// effect is released.
  static func storeWithCanary(
    on dispatcher: Dispatcher, other: Store<Tally>, reaction: Reaction
  ) -> Store<Tally> {
    let canary: Canary
    switch reaction {
    case .cancelsSubscription:
      let subscription = other.observe(\.count) { _ in }
      canary = Canary { subscription.cancel() }
    case .dispatches:
      canary = Canary { other.dispatch(Bump()) }
    }
    return Store(
      initialState: Tally(), dispatcher: dispatcher, reducer: tallyReducer,
      effects: Effects<Tally>().on(Trigger.self) { _, _ in withExtendedLifetime(canary) {} })
  }

  /// Holds a store's reference until `release()` drops it.
  final class Slot: @unchecked Sendable {
    // @unchecked Sendable: `store` is only touched under `lock`.
    private let lock = NSLock()
    private var store: Store<Tally>?
    init(_ store: Store<Tally>) { self.store = store }
    func release() {
      let dropped = lock.withLock { store.take() }
      withExtendedLifetime(dropped) {}  // The store's deinit runs here, outside `lock`.
    }
  }

  @Test(arguments: [Reaction.cancelsSubscription, .dispatches])
  func aStoreWhoseEffectCapturedACallbackIsReleasedOnAnIdleLane(_ reaction: Reaction) async {
    let dispatcher = Dispatcher()
    let other = Store(initialState: Tally(), dispatcher: dispatcher, reducer: Self.tallyReducer)
    let slot = Slot(Self.storeWithCanary(on: dispatcher, other: other, reaction: reaction))
    other.dispatch(Bump())  // The drainer caches the routing that holds the effect.

    #expect(
      await obsOnBackgroundThread(timeout: hangGuardSeconds) { slot.release() }, "the release hung")
    let before = other.state.count
    #expect(await obsOnBackgroundThread(timeout: hangGuardSeconds) { other.dispatch(Bump()) })
    #expect(other.state.count == before + 1)
    if reaction == .dispatches { #expect(before == 2) }
  }

  @Test(arguments: [Reaction.cancelsSubscription, .dispatches])
  func aStoreWhoseEffectCapturedACallbackIsReleasedWhileAnotherThreadHoldsTheLane(
    _ reaction: Reaction
  ) async {
    let dispatcher = Dispatcher()
    let other = Store(initialState: Tally(), dispatcher: dispatcher, reducer: Self.tallyReducer)
    let slot = Slot(Self.storeWithCanary(on: dispatcher, other: other, reaction: reaction))
    let held = ObsEvent()
    let letGo = ObsEvent()
    let holder = Store(
      initialState: Tally(), dispatcher: dispatcher,
      reducer: Reducer<Tally>().on(Hold.self) { state, _ in state.count += 1 })
    let holding = holder.observe(\.count, from: .nextChange) { _ in
      held.signal()
      _ = letGo.waitBlocking(timeout: hangGuardSeconds)
    }
    // The holder's thread holds the lane, inside the observer, with the effect's routing cached.
    let holderDone = Task {
      await obsOnBackgroundThread(timeout: hangGuardSeconds) { holder.dispatch(Hold()) }
    }
    #expect(await held.wait(timeout: hangGuardSeconds))

    let released = Task {
      await obsOnBackgroundThread(timeout: hangGuardSeconds) { slot.release() }
    }
    if reaction == .cancelsSubscription {
      // Nothing in the release waits for the lane.
      #expect(await released.value, "the release hung while another thread held the lane")
    }
    letGo.signal()
    #expect(await holderDone.value, "the thread holding the lane hung")
    #expect(await released.value, "the release hung")
    let before = other.state.count
    #expect(await obsOnBackgroundThread(timeout: hangGuardSeconds) { other.dispatch(Bump()) })
    #expect(other.state.count == before + 1)
    if reaction == .dispatches { #expect(before == 1) }
    withExtendedLifetime(holding) {}
  }
}
