import Foundation
import Sluice

/// Records the actions a store sees, for tests lighter than a ``TestStore`` (Mini-Swift's
/// `TestMiddleware`).
///
/// Record through middleware:
///
/// ```swift
/// let recorder = ActionRecorder<Counter>()
/// let store = Store(initialState: Counter(), reducer: reducer, middleware: [recorder.middleware])
/// store.dispatch(Increment())
/// #expect(recorder.actions(of: Increment.self).count == 1)
/// ```
///
/// or attach to an existing store with ``init(recording:)``.
public final class ActionRecorder<State: Sendable>: Sendable {
  private let recorded = Guarded<[any Action]>([])
  private let subscription = Guarded<Subscription?>(nil)

  /// A recorder to plug in as ``middleware``.
  public init() {}

  /// A recorder attached to `store`: it records every action the store sees from now on, until
  /// ``stop()`` or its deinitialization.
  public init(recording store: Store<State>) {
    let recorded = self.recorded
    subscription.withLock {
      $0 = store.record { step in recorded.withLock { $0.append(step.action) } }
    }
  }

  deinit { stop() }

  /// Middleware that records every action the store sees (before any other middleware of the
  /// store changes or drops it, when it comes first) and lets it pass.
  public var middleware: Middleware<State> {
    .intercept { [recorded] action, _ in
      recorded.withLock { $0.append(action) }
      return .proceed
    }
  }

  /// Every action recorded, in order.
  public var actions: [any Action] { recorded.withLock { $0 } }

  /// The recorded actions of type `A`, in order.
  public func actions<A: Action>(of type: A.Type) -> [A] {
    recorded.withLock { $0.compactMap { $0 as? A } }
  }

  /// Forgets the recorded actions.
  public func clear() {
    recorded.withLock { $0.removeAll() }
  }

  /// Stops recording (a recorder attached with ``init(recording:)``).
  public func stop() {
    subscription.withLock { $0 }?.cancel()
  }
}
