/// Holds one state value and changes it only by reducing actions, on a serial lane.
///
/// ```swift
/// struct AppState: Equatable { var counter = 0; var step = 1 }
/// struct Increment: Action {}
///
/// let store = Store(
///   initialState: AppState(),
///   reducer: Reducer<AppState>().on(Increment.self) { state, _ in state.counter += state.step })
/// let subscription = store.observe(\.counter) { change in print(change.old, "→", change.new) }
/// store.dispatch(Increment())  // prints "0 → 0", then "0 → 1"
/// ```
///
/// A store made without a ``Dispatcher`` owns a private one; stores made with the same
/// dispatcher share its lane and its order. A store joins its lane last, once its effects and
/// persistence are in place: on a busy shared lane, every action it reduces starts its effects
/// and is saved. `state` can be read from any thread and is never torn. When `State` is `Equatable`, whole-state observers are called only when the state
/// really changed.
///
/// A store ends when the last reference to it goes — unless it is registered on its dispatcher
/// (``Dispatcher/register(_:file:line:)-10kgd``), then when its dispatcher goes; its observers,
/// subscriptions and lane never keep it alive. A store keeps its dispatcher alive.
public final class Store<State: Sendable>: AnyStore, @unchecked Sendable {
  // @unchecked Sendable: immutable; the core is Sendable.
  @usableFromInline let core: StoreCore<State>

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts with, and returns to on ``reset()``.
  ///   - dispatcher: The lane to join; a private one when `nil`.
  ///   - reducer: How actions change the state, and the effects its handlers carry.
  ///   - middleware: Code run around the reducer, in order (see ``Middleware``).
  ///   - effects: Work started after actions are reduced (see ``Effects``), after the
  ///     reducer's; it lives as long as the store.
  ///   - dependencies: Sets what the effects read as ``EffectContext/dependencies``; the
  ///     defaults (``DependencyKey/defaultValue``) for what it does not set.
  @inlinable
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    dependencies: (inout Dependencies) -> Void = { _ in }
  ) {
    self.init(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      middleware: middleware, effects: effects, dependencies: .made(by: dependencies),
      isEqual: nil)
  }

  /// Creates a store whose whole-state observers are called only on real changes.
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts with, and returns to on ``reset()``.
  ///   - dispatcher: The lane to join; a private one when `nil`.
  ///   - reducer: How actions change the state, and the effects its handlers carry.
  ///   - middleware: Code run around the reducer, in order (see ``Middleware``).
  ///   - effects: Work started after actions are reduced (see ``Effects``), after the
  ///     reducer's; it lives as long as the store.
  ///   - dependencies: Sets what the effects read as ``EffectContext/dependencies``; the
  ///     defaults (``DependencyKey/defaultValue``) for what it does not set.
  @inlinable
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    dependencies: (inout Dependencies) -> Void = { _ in }
  ) where State: Equatable {
    self.init(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      middleware: middleware, effects: effects, dependencies: .made(by: dependencies),
      isEqual: { $0 == $1 })
  }

  /// What every public initializer does: makes the core (from inlinable code, so its lane
  /// operations are specialized for `State`), starting from `restored` when persistence found
  /// a state, lets `beforeJoining` wire the rest (the persistence), then joins the lane with
  /// the effects (see ``join(effects:)``).
  @inlinable
  convenience init(
    initialState: State, dispatcher: Dispatcher?, reducer: Reducer<State>,
    middleware: [Middleware<State>], effects: Effects<State>, dependencies: Dependencies,
    isEqual: (@Sendable (State, State) -> Bool)?, restored: State? = nil,
    persistence: (any PersistenceHandle)? = nil,
    beforeJoining: ((Store<State>) -> Void)? = nil
  ) {
    let dispatcher = Store.dispatcher(joining: dispatcher)
    let core = StoreCore(
      initialState: initialState, reducer: reducer, lane: dispatcher.lane, isEqual: isEqual)
    if let restored, !Self.refusesRestore(on: core.lane) { core.current = restored }
    core.dependencies = dependencies
    self.init(core: core, dispatcher: dispatcher, middleware: middleware, persistence: persistence)
    beforeJoining?(self)
    join(effects: reducer.effects.combined(with: effects))
  }

  /// Attaches the store to its lane, last: once attached, a busy shared lane may route an action
  /// to it at once, so everything that must see its actions is in place before. The effects
  /// given at init are added in the same step of the lane's lock as the attachment (an effect
  /// never starts for an action the store did not see), and the persistence's step hook was set
  /// by `beforeJoining` (every action the store reduces is saved).
  @usableFromInline
  func join(effects: Effects<State>) {
    core.lane.attach(core, effects: Self.initialEffectRegistrations(effects, core: core))
  }

  /// Wraps a core that is not attached yet, with its middleware and persistence; the caller
  /// attaches it (from inlinable code, so the core's lane operations are specialized for `State`).
  @usableFromInline
  convenience init(
    core: StoreCore<State>, dispatcher: Dispatcher, middleware: [Middleware<State>],
    persistence: (any PersistenceHandle)? = nil
  ) {
    core.persistence = persistence
    for entry in middleware {
      core.middleware.append((id: core.nextMiddlewareID, middleware: entry))
      core.nextMiddlewareID += 1
    }
    core.extras.store(middleware.count, ordering: .relaxed)
    self.init(wrapping: core, dispatcher: dispatcher)
  }

  /// A store object around `core`: a new store's, or a registered store's whose objects all went
  /// (then under the lane's lock: it runs no user code).
  init(wrapping core: StoreCore<State>, dispatcher: Dispatcher) {
    self.core = core
    core.stores += 1
    super.init(
      anyCore: core, dispatcher: dispatcher,
      multiReactorMaker: { store, ownerGone, handler in
        unsafeDowncast(store, to: Store<State>.self).attachMultiReactor(
          ownerGone: ownerGone, handler: handler)
      })
  }

  /// `dispatcher`, or a new private one.
  @usableFromInline
  static func dispatcher(joining dispatcher: Dispatcher?) -> Dispatcher {
    dispatcher ?? Dispatcher(label: "sluice.store.\(State.self)")
  }

  deinit {
    dispatcher.storeGone(core, key: ObjectIdentifier(State.self))
  }

  /// The current state: a consistent snapshot, from any thread.
  ///
  /// Reading it from inside one of this store's own reducers is a misuse (the reducer has the
  /// state as its `inout` parameter): it is reported and returns the initial state.
  public var state: State { core.state }

  /// Dispatches an action to every store on this store's lane.
  ///
  /// See ``Dispatcher/dispatch(_:mode:file:line:)``.
  @inlinable
  public func dispatch<A: Action>(
    _ action: A, mode: DispatchMode = .sync,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    core.lane.dispatch(action, mode: mode, file: file, line: line)
  }

  /// Dispatches an action and resumes once it was processed. See
  /// ``Dispatcher/send(_:file:line:)``.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - file: Where the action was dispatched, for an attached inspector; the caller's by
  ///     default.
  ///   - line: The line of that place; the caller's by default.
  public func send(
    _ action: some Action, file: StaticString = #fileID, line: UInt = #line
  ) async {
    await core.lane.send(action, file: file, line: line)
  }

  /// Returns the store to its initial state, through the lane, observed like any change
  /// (Mini-Swift's `reset`). Synchronous like ``dispatch(_:mode:file:line:)``. On a shared lane
  /// it changes nothing and reports ``SharedLaneError/Kind/localOnly(_:)`` on the dispatcher's
  /// errors channel: the state would differ from the other nodes'.
  public func reset() {
    let core = self.core
    if core.lane.refuseOnSharedLane("reset") != nil { return }
    core.lane.perform(.change) { core.replaceState(with: core.initialState) }
  }

  /// A reactor over this store for `Dispatcher.react(to:)`.
  func attachMultiReactor(
    ownerGone: (@Sendable () -> Bool)?, handler: @escaping @Sendable (MultiReaction) -> Bool
  ) -> Subscription {
    addReactor(ownerGone: ownerGone) { reaction in
      guard let store = reaction.store else { return true }
      return handler(MultiReaction(reaction, store: store))
    }
  }
}
