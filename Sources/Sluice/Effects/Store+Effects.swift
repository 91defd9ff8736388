extension Store {
  /// Registers effects that live as long as the store (or until the subscription is
  /// cancelled; dropping the subscription does not end them).
  ///
  /// Effects usually come with the store, from
  /// ``init(initialState:dispatcher:reducer:middleware:effects:dependencies:)-76mr9``. Their
  /// context reads the store's ``Dependencies``.
  @discardableResult
  public func addEffects(_ effects: Effects<State>) -> Subscription {
    let (group, registrations) = Self.bind(effects, to: core)
    core.lane.addEffects(registrations)
    return Subscription(cancelsOnDeinit: false) { [lane = core.lane] in
      lane.removeEffects(group: group)
    }
  }

  /// The registrations of the effects given at init, for ``join(effects:)`` and registered
  /// stores (which attach `core` with them).
  static func initialEffectRegistrations(
    _ effects: Effects<State>, core: StoreCore<State>
  ) -> [EffectRegistration] {
    guard effects.count > 0 else { return [] }
    return bind(effects, to: core).registrations
  }

  /// Binds `effects` to the store of `core` as one group, removed when the store ends (see
  /// ``AnyStoreCore/retire()``).
  private static func bind(
    _ effects: Effects<State>, to core: StoreCore<State>
  ) -> (group: EffectGroup, registrations: [EffectRegistration]) {
    let group = EffectGroup()
    let registrations = effects.registrations(
      group: group, owner: core, lane: core.lane, readState: { core.state },
      errors: ErrorSink(channels: [core.errors, core.lane.errors]),
      dependencies: core.dependencies)
    core.endOfStore.withLock {
      $0.append { [lane = core.lane] in lane.removeEffects(group: group) }
    }
    return (group, registrations)
  }

  /// The channels an error of this store goes to.
  var errorSink: ErrorSink { ErrorSink(channels: [core.errors, core.lane.errors]) }

  /// This store's errors: from its effects and loads, and carried by the actions it handles.
  public var errors: ErrorChannel { core.errors }

  /// Waits until no effect is in flight on this store's lane and everything they dispatched was
  /// processed; returns at once when nothing runs.
  ///
  /// It waits for every effect of the lane: those of the other stores on this store's
  /// dispatcher, and the dispatcher's own (``Dispatcher/addEffects(_:dependencies:)``), too.
  /// Effects that keep starting new effects (a poll loop) keep it waiting. Called from inside
  /// one of the lane's effects, it would wait for itself: it reports a
  /// ``ReportedIssue/Kind/settleInsideEffect`` issue and returns at once.
  public func settle(file: StaticString = #fileID, line: UInt = #line) async {
    await core.lane.settle(file: file, line: line)
  }

  /// The number of effects in flight on this store's lane (a cancelled one counts until it
  /// ends); for tests and testing tools (apps wait with ``settle(file:line:)``).
  package var effectsInFlight: Int { core.lane.effects.inFlight }

  /// The effects in flight on this store's lane that were not cancelled; for testing tools.
  package var activeEffectCount: Int { core.lane.effects.activeCount }

  /// Runs the effects started on this store's lane from now on as tasks that prefer `executor`,
  /// for testing tools that tell an effect waiting for a thread from one waiting on an event.
  package func preferEffectExecutor(_ executor: any TaskExecutor) {
    core.lane.effects.prefer(executor)
  }

  /// Calls `body` once, as soon as no effect in flight on this store's lane is left that was not
  /// cancelled (at once when none is); for testing tools that must wait without awaiting.
  package func whenNoActiveEffect(_ body: @escaping @Sendable () -> Void) {
    core.lane.effects.whenNoActiveEffect(body)
  }

  /// What started each effect in flight on this store's lane that was not cancelled, oldest
  /// first; for testing tools' messages.
  package var activeEffectSources: [ErrorEvent.Source] { core.lane.effects.activeSources }

  /// Cancels the effects running under `id` on this store's lane, or every effect in flight on
  /// it when `id` is `nil` (the default): ids are shared by every store of a dispatcher and by
  /// the dispatcher's own effects.
  public func cancelEffects(id: EffectID? = nil) {
    if let id { core.lane.effects.cancel(id: id) } else { core.lane.effects.cancelAll() }
  }
}
