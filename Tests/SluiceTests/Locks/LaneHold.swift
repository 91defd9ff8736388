import Foundation
import Sluice
import SluiceTestSupport

/// A thread of its own holds a `LaneLog` store's lane: an observer of `LaneAdd(id: 0)` blocks
/// until ``release`` is signalled, for twice ``hangGuard`` at most: longer than any test's hang
/// guard, so that a starved test never finds the lane already let go, and a test's guard expires
/// while the lane is still held.
final class LaneHold: Sendable {
  let entered = DispatchSemaphore(value: 0)
  let release = DispatchSemaphore(value: 0)
  private let subscription: Subscription

  /// Starts the dispatch of `LaneAdd(id: 0)` that holds the lane; await ``held()`` next.
  init(_ store: Store<LaneLog>) {
    let (entered, release) = (self.entered, self.release)
    subscription = store.observe(\.last, from: .nextChange) { change in
      guard change.new == 0 else { return }
      entered.signal()
      _ = release.wait(timeout: .now() + 2 * hangGuardSeconds)
    }
    Thread { store.dispatch(LaneAdd(id: 0)) }.start()
  }

  /// Whether the lane is held (within ``hangGuard``).
  func held() async -> Bool { await wait(for: entered) }

  /// Stops observing (call after ``release``).
  func cancel() { subscription.cancel() }
}
