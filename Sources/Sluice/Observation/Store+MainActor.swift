/// The main actor, as a delivery whose observers are isolated to it: see
/// `Store.observe(on:from:_:)` with this delivery.
///
/// `store.observe(on: .mainActor) { … }` picks the observer isolated to the main actor, so its
/// body can touch main-actor state (`self.label = …` in a main-actor class) without
/// `MainActor.assumeIsolated`. The observer is delivered like ``Delivery/mainActor``: in
/// batches, in order, on the main actor.
public struct MainActorDelivery: Sendable, Hashable {
  /// Delivery on the main actor, to an observer isolated to it.
  public static let mainActor = MainActorDelivery()
}

extension Store {
  /// Calls `body`, isolated to the main actor, with the state after every change.
  ///
  /// The same observer as `observe(on: Delivery.mainActor)`,
  /// whose body may touch main-actor state:
  ///
  /// ```swift
  /// @MainActor
  /// final class CounterLabel {
  ///   var text = ""
  ///   var subscription: Subscription?
  ///
  ///   func show(_ store: Store<Counter>) {
  ///     subscription = store.observe(on: .mainActor) { state in
  ///       self.text = "\(state.value)"
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - delivery: `.mainActor`.
  ///   - start: Whether `body` first receives the current state (the default) or only changes.
  ///   - body: The observer, isolated to the main actor.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialized.
  public func observe(
    on delivery: MainActorDelivery, from start: ObservationStart = .currentValue,
    _ body: @escaping @MainActor @Sendable (State) -> Void
  ) -> Subscription {
    observe(on: Delivery.mainActor, from: start) { state in
      // Main-actor deliveries run on the main actor (see `Sink`).
      MainActor.assumeIsolated { body(state) }
    }
  }

  /// Calls `body`, isolated to the main actor, with the old and new value whenever the value at
  /// `path` changes, like `observe(_:on:from:_:)` with ``Delivery/mainActor``.
  public func observe<Value: Equatable & Sendable>(
    _ path: KeyPath<State, Value> & Sendable, on delivery: MainActorDelivery,
    from start: ObservationStart = .currentValue,
    _ body: @escaping @MainActor @Sendable (Change<Value>) -> Void
  ) -> Subscription {
    observe(path, on: Delivery.mainActor, from: start) { change in
      MainActor.assumeIsolated { body(change) }
    }
  }

  /// Calls `body`, isolated to the main actor, with `owner` and the state after every change,
  /// for as long as `owner` lives, like `observe(owner:on:from:_:)` with ``Delivery/mainActor``.
  @discardableResult
  public func observe<Owner: AnyObject & Sendable>(
    owner: Owner, on delivery: MainActorDelivery, from start: ObservationStart = .currentValue,
    _ body: @escaping @MainActor @Sendable (Owner, State) -> Void
  ) -> Subscription {
    observe(owner: owner, on: Delivery.mainActor, from: start) { owner, state in
      MainActor.assumeIsolated { body(owner, state) }
    }
  }
}
