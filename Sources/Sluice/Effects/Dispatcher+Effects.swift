extension Dispatcher {
  /// Registers effects on the lane itself, for actions no single store owns; they live as long
  /// as this dispatcher, which every store on the lane keeps alive (see "Identity and lifetime"
  /// in ``Dispatcher``), or until the subscription is cancelled (dropping it does not end them).
  /// Their context's state is `()`: reach stores through `context.dispatcher`.
  ///
  /// ```swift
  /// dispatcher.addEffects(
  ///   Effects<Void>().on(LoggedOut.self) { _, context in
  ///     try await context.dependencies.authClient.revokeToken()
  ///     context.dispatch(TokenRevoked())
  ///   })
  /// ```
  ///
  /// - Parameters:
  ///   - effects: The effects.
  ///   - dependencies: Sets what the effects read as ``EffectContext/dependencies``; the
  ///     defaults (``DependencyKey/defaultValue``) for what it does not set.
  @discardableResult
  public func addEffects(
    _ effects: Effects<Void>, dependencies: (inout Dependencies) -> Void = { _ in }
  ) -> Subscription {
    let group = EffectGroup()
    let registrations = effects.registrations(
      group: group, owner: nil, lane: lane, readState: {},
      errors: ErrorSink(channels: [lane.errors]), dependencies: .made(by: dependencies))
    lane.rebuildRouting {
      registry.effectGroups.append(group)
      lane.effectRegistrations.append(contentsOf: registrations)
    }
    return Subscription(cancelsOnDeinit: false) { [weak self, lane] in
      lane.removeEffects(group: group)
      // Held here, released after the lock.
      guard let self else { return }
      lane.lock.withLock { registry.effectGroups.removeAll { $0 == group } }
    }
  }

  /// Waits until no effect is in flight on this lane and everything they dispatched was
  /// processed; for tests (apps call ``Store/settle(file:line:)`` on any store of the lane).
  package func settle(file: StaticString = #fileID, line: UInt = #line) async {
    await lane.settle(file: file, line: line)
  }

  /// The number of effects in flight on this lane; for tests.
  package var effectsInFlight: Int { lane.effects.inFlight }

  /// Cancels the effects running under `id` on this lane, or every effect in flight on it when
  /// `id` is `nil` (the default); for tests (apps call ``Store/cancelEffects(id:)`` on any
  /// store of the lane).
  package func cancelEffects(id: EffectID? = nil) {
    if let id { lane.effects.cancel(id: id) } else { lane.effects.cancelAll() }
  }

  /// Every error reported on this lane: by effects and loads of any store, and carried by
  /// actions.
  public var errors: ErrorChannel { lane.errors }
}

extension Lane {
  func settle(file: StaticString, line: UInt) async {
    if EffectRuntime.current == ObjectIdentifier(effects) {
      report(
        .settleInsideEffect,
        "settle() was called from inside one of the lane's own effects, where it "
          + "would wait for itself; it returned at once.", file: file, line: line)
      return
    }
    while true {
      await effects.waitUntilIdle()
      // Everything queued so far — the effects' dispatches among it — runs before this, and
      // the check runs on the lane, between items: nothing is half processed.
      let settled = await performAsync(.change) { [self] in
        effects.inFlight == 0 && queueDepth == 0
      }
      if settled == true { return }
    }
  }
}
