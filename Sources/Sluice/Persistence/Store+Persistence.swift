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
  /// When `State` is `Equatable`, whole-state observers are called only on real changes; the
  /// persistence itself marks the store dirty after every action it reduces, changed or not
  /// (comparing states on every dispatch would cost more than an occasional identical write).
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
    dependencies: (inout Dependencies) -> Void = { _ in }, persistence: PersistenceKey<State>
  ) {
    let controller = PersistenceController(key: persistence)
    self.init(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      middleware: middleware, effects: effects, dependencies: .made(by: dependencies),
      isEqual: Store.equality(), restored: controller.restored,
      persistence: controller, beforeJoining: { $0.startPersistence(controller) })
  }

  /// `==` of `State` when it is `Equatable` (found at run time, once per store), else `nil`.
  @usableFromInline
  static func equality() -> (@Sendable (State, State) -> Bool)? {
    guard let type = State.self as? any (Equatable & Sendable).Type else { return nil }
    return type.equality(of: State.self)
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

  /// Calls `body` with ``StepEvent/changed`` on the lane after every step in which the store
  /// reduced an action (changed or not), for the persistence: a watcher of it, added here as
  /// the store has not joined its lane yet (``startPersistence(_:)``); attaching publishes it to
  /// the lane.
  func onEveryStep(_ body: @escaping @Sendable (StepEvent<State>) -> Void) -> Subscription {
    let sink = Sink(delivery: .synchronous, body: body)
    core.watchers.append((.changed, sink))
    core.extrasChanged()
    return subscription(for: sink.gate, cancelsOnDeinit: true)
  }
}

extension Store {
  /// Whether `lane` refuses a restored state: a shared lane does, and reports it.
  @usableFromInline
  static func refusesRestore(on lane: Lane) -> Bool {
    lane.refuseOnSharedLane("persistence restore") != nil
  }
}

extension Equatable where Self: Sendable {
  /// `==` of `Self` as a function of `Value`, when `Value` is `Self`: a comparison that boxes
  /// nothing and casts nothing at run time, made once per store.
  fileprivate static func equality<Value>(of _: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
    guard Value.self == Self.self else { return nil }
    // `Value` is `Self` (checked above): each cast reinterprets a value as its own type.
    return { unsafeBitCast($0, to: Self.self) == unsafeBitCast($1, to: Self.self) }
  }
}
