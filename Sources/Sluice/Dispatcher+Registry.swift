/// A state type that knows how to make its store, so a dispatcher can create it by type
/// (JBFlux's `registerStore:`).
///
/// ```swift
/// struct CurrentUser: StoreDefinition {
///   var name: String?
///   static let initialState = CurrentUser()
///   static let reducer = Reducer<CurrentUser>()
///     .on(CurrentUserRefreshed.self) { state, action in state.name = action.name }
/// }
/// dispatcher.register(CurrentUser.self)
/// let store = dispatcher.store(CurrentUser.self)  // the same instance, every time
/// ```
public protocol StoreDefinition: Sendable {
  /// The state a new store starts with.
  static var initialState: Self { get }
  /// The reducer of the store.
  static var reducer: Reducer<Self> { get }
}

extension Dispatcher {
  /// Creates the store of `type` on this dispatcher and keeps it for the dispatcher's lifetime.
  ///
  /// Registering a type twice is reported and returns the store registered first. Threads
  /// registering one type at once get one store: exactly one is created (each caller may read
  /// `S.initialState` and `S.reducer`). A registered store does not keep its dispatcher alive;
  /// the stores on the lane that are not registered do (see "Identity and lifetime" in
  /// ``Dispatcher``).
  @inlinable @discardableResult
  public func register<S: StoreDefinition>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) { lane in
      StoreCore(initialState: S.initialState, reducer: S.reducer, lane: lane, isEqual: nil)
    }
  }

  /// Creates the store of `type` on this dispatcher and keeps it for the dispatcher's lifetime;
  /// its observers fire only on real changes.
  @inlinable @discardableResult
  public func register<S: StoreDefinition & Equatable>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) { lane in
      StoreCore(
        initialState: S.initialState, reducer: S.reducer, lane: lane, isEqual: { $0 == $1 })
    }
  }

  /// Keeps `store` for the dispatcher's lifetime, retrievable by its state type.
  ///
  /// The store must be on this dispatcher: a store of another dispatcher is reported as
  /// ``ReportedIssue/Kind/foreignStore`` and not registered. Registering a state type twice is
  /// reported and keeps the first store. Once registered, the store no longer keeps its
  /// dispatcher alive (see "Identity and lifetime" in ``Dispatcher``).
  public func register<S>(_ store: Store<S>, file: StaticString = #fileID, line: UInt = #line) {
    guard store.core.lane === lane else {
      lane.report(
        .foreignStore,
        "register(_:) was given a Store<\(S.self)> of another dispatcher; it was not "
          + "registered on '\(label)'.", file: file, line: line)
      return
    }
    if !lane.register(store, key: ObjectIdentifier(S.self)).isNew {
      reportDuplicate(S.self, file: file, line: line)
    }
  }

  /// The store registered for `type`, if any.
  public func store<S>(_ type: S.Type) -> Store<S>? {
    lane.registered(ObjectIdentifier(type)) as? Store<S>
  }

  /// Forgets the store registered for `type`; it is deinitialized when nothing else holds it,
  /// and keeps its dispatcher alive while something does.
  public func unregister<S>(_ type: S.Type) {
    lane.unregister(ObjectIdentifier(type))
  }

  /// Registers the store of `type`, made from the core `makeCore` returns, unless one is
  /// registered already: the core is made outside every lock (its definition is user code),
  /// and the store around it is created, attached and registered in one step of the lane's
  /// lock, so racing callers create one store.
  @usableFromInline
  func register<S>(
    _ type: S.Type, file: StaticString, line: UInt, makeCore: (Lane) -> StoreCore<S>
  ) -> Store<S> {
    let key = ObjectIdentifier(type)
    if let existing = lane.registered(key) {
      reportDuplicate(S.self, file: file, line: line)
      return Self.typed(existing)
    }
    let core = makeCore(lane)
    let (store, isNew) = lane.registerNew(key: key) { Store(core: core, middleware: []) }
    // A losing caller's core was never attached; it is released here, outside the lock.
    if !isNew { reportDuplicate(S.self, file: file, line: line) }
    return Self.typed(store)
  }

  /// A store of the registry as the store of its key's state type.
  private static func typed<S>(_ store: AnyStore) -> Store<S> {
    guard let typed = store as? Store<S> else {
      preconditionFailure("internal inconsistency: the registry holds another type under \(S.self)")
    }
    return typed
  }

  private func reportDuplicate<S>(_ type: S.Type, file: StaticString, line: UInt) {
    lane.report(
      .duplicateRegistration,
      "\(S.self) is already registered on '\(label)'; the first store was kept.", file: file,
      line: line)
  }
}
