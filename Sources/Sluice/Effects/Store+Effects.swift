extension Store {
  /// Registers effects that live as long as the store (or until the subscription is
  /// cancelled; dropping the subscription does not end them).
  ///
  /// Effects usually come with the store, from
  /// ``init(initialState:dispatcher:reducer:middleware:effects:)-lhdv``.
  @discardableResult
  public func addEffects(_ effects: Effects<State>) -> Subscription {
    let (group, registrations) = bind(effects)
    core.lane.addEffects(registrations)
    return Subscription(cancelsOnDeinit: false) { [lane = core.lane] in
      lane.removeEffects(group: group)
    }
  }

  /// The registrations of the effects given at init, for ``join(effects:)``.
  func initialEffectRegistrations(_ effects: Effects<State>) -> [EffectRegistration] {
    guard effects.count > 0 else { return [] }
    return bind(effects).registrations
  }

  /// Binds `effects` to this store as one group, removed when the store ends (see
  /// ``AnyStoreCore/retire()``).
  private func bind(
    _ effects: Effects<State>
  ) -> (group: EffectGroup, registrations: [EffectRegistration]) {
    let group = EffectGroup()
    let core = self.core
    let registrations = effects.registrations(
      group: group, owner: core, lane: core.lane, readState: { core.state }, errors: errorSink)
    core.endOfStore.withLock {
      $0.append { [lane = core.lane] in lane.removeEffects(group: group) }
    }
    return (group, registrations)
  }

  /// The channels an error of this store goes to.
  var errorSink: ErrorSink { ErrorSink(channels: [core.errors, core.lane.errors]) }

  /// This store's errors: from its effects and commands, and carried by the actions it handles.
  public var errors: ErrorChannel { core.errors }

  /// Waits until no effect is in flight on this store's lane and everything they dispatched was
  /// processed. See ``Dispatcher/settle(file:line:)``.
  public func settle(file: StaticString = #fileID, line: UInt = #line) async {
    await core.lane.settle(file: file, line: line)
  }

  /// The number of effects and asynchronous commands in flight on this store's lane (a
  /// cancelled one counts until it ends).
  public var effectsInFlight: Int { core.lane.effects.inFlight }

  /// The effects in flight on this store's lane that were not cancelled; for testing tools.
  package var activeEffectCount: Int { core.lane.effects.activeCount }

  /// Calls `body` once, as soon as no effect in flight on this store's lane is left that was not
  /// cancelled (at once when none is); for testing tools that must wait without awaiting.
  package func whenNoActiveEffect(_ body: @escaping @Sendable () -> Void) {
    core.lane.effects.whenNoActiveEffect(body)
  }

  /// What started each effect in flight on this store's lane that was not cancelled, oldest
  /// first; for testing tools' messages.
  package var activeEffectSources: [ErrorEvent.Source] { core.lane.effects.activeSources }

  /// Cancels the effects running under `id` on this store's lane.
  public func cancelEffects(id: EffectID) {
    core.lane.effects.cancel(id: id)
  }

  /// Cancels every effect and asynchronous command in flight on this store's lane.
  public func cancelAllEffects() {
    core.lane.effects.cancelAll()
  }

  // MARK: - Commands

  /// Runs a synchronous command with the current state; see ``Command``.
  public func dispatch<C: Command>(_ command: C) where C.State == State {
    command.execute(state: state, dispatch: Dispatch(lane: core.lane))
  }

  /// Starts an asynchronous command as a task and returns at once; see ``AsyncCommand``.
  @discardableResult
  public func dispatch<C: AsyncCommand>(_ command: C) -> EffectTask where C.State == State {
    let snapshot = state
    return launch(source: .command("\(C.self)")) { context in
      try await command.execute(state: snapshot, context: context)
    }
  }

  /// Runs a synchronous thunk with the current state and a dispatch function.
  ///
  /// ```swift
  /// store.execute { state, dispatch in
  ///   if state.counter < 10 { dispatch(CounterEvent.increase) }
  /// }
  /// ```
  public func execute(_ body: (State, Dispatch) -> Void) {
    body(state, Dispatch(lane: core.lane))
  }

  /// Starts an asynchronous thunk as a task, like an ``AsyncCommand``.
  @discardableResult
  public func launch(
    _ body: @escaping @Sendable (EffectContext<State>) async throws -> Void
  ) -> EffectTask {
    launch(source: .command("launch"), body)
  }

  func launch(
    source: ErrorEvent.Source,
    _ body: @escaping @Sendable (EffectContext<State>) async throws -> Void
  ) -> EffectTask {
    let core = self.core
    let errors = errorSink
    let context = EffectContext(
      lane: core.lane, readState: { core.state }, errors: errors, source: source, trigger: nil)
    return core.lane.effects.start(
      key: core.lane.effects.key(for: nil), group: core.commandGroup, errors: errors,
      source: source, action: nil
    ) { try await body(context) }
  }
}
