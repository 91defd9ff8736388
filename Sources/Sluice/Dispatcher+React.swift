extension Dispatcher {
  /// Calls `handler` once per committed change of any of `stores` (Flask's reactor mixing
  /// several substances); ``MultiReaction/store`` says which one changed.
  ///
  /// ```swift
  /// let subscription = dispatcher.react(to: [app, feed]) { reaction in
  ///   reaction.at(app)?.on(\.counter) { change in print(change.new) }
  /// }
  /// ```
  ///
  /// A transaction that changes two of the stores calls `handler` twice, once per store. Stores
  /// on another dispatcher are ignored and reported.
  public func react(
    to stores: [AnyStore], file: StaticString = #fileID, line: UInt = #line,
    _ handler: @escaping @Sendable (MultiReaction) -> Void
  ) -> Subscription {
    attach(to: stores, ownerGone: nil, file: file, line: line) { reaction in
      handler(reaction)
      return true
    }
  }

  /// Like ``react(to:file:line:_:)``, for as long as `owner` lives: `owner` is held weakly and
  /// the reactor detaches once it is gone, in release builds too.
  @discardableResult
  public func react<Owner: AnyObject & Sendable>(
    to stores: [AnyStore], owner: Owner, file: StaticString = #fileID, line: UInt = #line,
    _ handler: @escaping @Sendable (Owner, MultiReaction) -> Void
  ) -> Subscription {
    attach(
      to: stores, ownerGone: { [weak owner] in owner == nil }, file: file, line: line,
      handler: { [weak owner] reaction in
        guard let owner else { return false }
        handler(owner, reaction)
        return true
      })
  }

  private func attach(
    to stores: [AnyStore], ownerGone: (@Sendable () -> Bool)?, file: StaticString, line: UInt,
    handler: @escaping @Sendable (MultiReaction) -> Bool
  ) -> Subscription {
    var subscriptions: [Subscription] = []
    var seen: Set<ObjectIdentifier> = []
    for store in stores where seen.insert(ObjectIdentifier(store)).inserted {
      guard store.anyCore.lane === lane else {
        lane.report(
          .foreignStore,
          "react(to:) named a store on another dispatcher; it was ignored.", file: file, line: line)
        continue
      }
      subscriptions.append(store.addMultiReactor(ownerGone: ownerGone, handler: handler))
    }
    let all = subscriptions
    return Subscription(cancelsOnDeinit: ownerGone == nil) {
      for subscription in all { subscription.cancel() }
    }
  }
}
