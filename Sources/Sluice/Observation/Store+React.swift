extension Store {
  /// Calls `handler` once per committed change of this store, with a ``Reaction`` to query
  /// (Flask's reactors).
  ///
  /// ```swift
  /// let subscription = store.react { reaction in
  ///   reaction.on(\.counter) { change in print(change.new) }
  /// }
  /// ```
  ///
  /// `handler` is called once when the reactor is attached, to learn its queries (the bodies of
  /// `on` are not called then); afterwards only when a queried value changed (or, with no
  /// queries, on every committed step). It runs on the lane, in registration order with the
  /// other observers. Attached from code running on the lane (a reducer, a middleware, an
  /// observer…), the reactor joins right after the current step, like an observer (see
  /// ``observe(on:from:_:)-(Delivery,_,_)``): it hears about the changes after that step.
  public func react(_ handler: @escaping @Sendable (Reaction<State>) -> Void) -> Subscription {
    addReactor(ownerGone: nil) { reaction in
      handler(reaction)
      return true
    }
  }

  /// Like ``react(_:)``, for as long as `owner` lives: the store holds `owner` weakly and
  /// detaches the reactor once `owner` is gone. Dropping the returned subscription does not
  /// detach it.
  @discardableResult
  public func react<Owner: AnyObject & Sendable>(
    owner: Owner, _ handler: @escaping @Sendable (Owner, Reaction<State>) -> Void
  ) -> Subscription {
    addReactor(
      ownerGone: { [weak owner] in owner == nil },
      handler: { [weak owner] reaction in
        guard let owner else { return false }
        handler(owner, reaction)
        return true
      })
  }

  func addReactor(
    ownerGone: (@Sendable () -> Bool)?, handler: @escaping @Sendable (Reaction<State>) -> Bool
  ) -> Subscription {
    let core = self.core
    let gate = Gate()
    registerObserver {
      guard !gate.isCancelled else { return }
      let reactor = Reactor(
        order: core.registry.takeOrder(), store: self, gate: gate, ownerGone: ownerGone,
        handler: handler)
      withUnsafePointer(to: &core.current) { reactor.discover($0) }
      core.registry.reactors.append(reactor)
      core.registryChanged()
    }
    return subscription(for: gate, cancelsOnDeinit: ownerGone == nil)
  }
}
