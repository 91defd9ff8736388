/// What a store needs of its persistence, whatever the state type.
@usableFromInline
protocol PersistenceHandle: AnyObject, Sendable {
  /// Stops saving and writes what is pending (the store is going away).
  func close()
}

extension Store where State: Codable {
  /// Creates a store persisted under `persistence`: its state is restored now, synchronously,
  /// and saved after changes.
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: Settings(), reducer: reducer,
  ///   persistence: .jsonFile("settings", in: folder))
  /// try await store.persistence?.flush()
  /// ```
  ///
  /// When nothing usable is stored, the store starts from `initialState`; see
  /// ``PersistenceController/restoreOutcome`` and ``RestoreOutcome``. ``reset()`` returns to
  /// `initialState`, not to the restored state. On a shared lane's dispatcher the store starts
  /// from `initialState` and the lane reports ``SharedLaneError/Kind/localOnly(_:)``: its state
  /// comes from the log, and a restored one would differ from the other nodes'.
  @inlinable
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    persistence: PersistenceKey<State>
  ) {
    let controller = PersistenceController(key: persistence)
    self.init(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      middleware: middleware, effects: effects, isEqual: nil, restored: controller.restored,
      persistence: controller, beforeJoining: { $0.startPersistence(controller) })
  }

  /// Creates a persisted store whose whole-state observers are called only on real changes.
  ///
  /// The persistence marks the store dirty after every action it reduces, changed or not
  /// (comparing states on every dispatch would cost more than an occasional identical write).
  @inlinable
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    persistence: PersistenceKey<State>
  ) where State: Equatable {
    let controller = PersistenceController(key: persistence)
    self.init(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      middleware: middleware, effects: effects, isEqual: { $0 == $1 },
      restored: controller.restored, persistence: controller,
      beforeJoining: { $0.startPersistence(controller) })
  }

  /// Starts the persistence of this store, before the store joins its lane (so it sees every
  /// action the store reduces).
  @usableFromInline
  func startPersistence(_ controller: PersistenceController<State>) {
    controller.start(store: self, errors: errorSink)
  }

  /// The store's persistence; `nil` for a store made without one.
  public var persistence: PersistenceController<State>? {
    core.persistence as? PersistenceController<State>
  }

  /// Calls `body` on the lane after every step in which the store reduced an action (changed
  /// or not: nothing is copied or compared), for the persistence.
  ///
  /// Called before the store joins its lane (from ``startPersistence(_:)``): no lane step can
  /// reach the core yet, so the hook is set here, and the lock of the attachment publishes it to
  /// the lane.
  func onEveryStep(_ body: @escaping @Sendable () -> Void) -> Subscription {
    let core = self.core
    core.stepHook = StepHook(body)
    core.registryChanged()
    return Subscription { [lane = core.lane, coreID = ObjectIdentifier(core)] in
      lane.perform {
        guard let core = lane.core(coreID) as? StoreCore<State> else { return }
        core.stepHook = nil
        core.registryChanged()
      }
    }
  }
}

extension Store {
  /// Whether `lane` refuses a restored state: a shared lane does, and reports it.
  @usableFromInline
  static func refusesRestore(on lane: Lane) -> Bool {
    lane.refuseOnSharedLane("persistence restore") != nil
  }
}
