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
  /// Registering a type twice is reported and returns the store registered first. A registered
  /// store does not keep its dispatcher alive; the stores on the lane that are not registered
  /// do (see "Identity and lifetime" in ``Dispatcher``).
  @inlinable @discardableResult
  public func register<S: StoreDefinition>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) {
      Store(initialState: S.initialState, dispatcher: self, reducer: S.reducer)
    }
  }

  /// Creates the store of `type` on this dispatcher and keeps it for the dispatcher's lifetime;
  /// its observers fire only on real changes.
  @inlinable @discardableResult
  public func register<S: StoreDefinition & Equatable>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) {
      Store(initialState: S.initialState, dispatcher: self, reducer: S.reducer)
    }
  }

  /// Keeps `store` for the dispatcher's lifetime, retrievable by its state type.
  ///
  /// The store must be on this dispatcher; registering a state type twice is reported and keeps
  /// the first store. Once registered, the store no longer keeps its dispatcher alive (see
  /// "Identity and lifetime" in ``Dispatcher``).
  public func register<S>(_ store: Store<S>, file: StaticString = #fileID, line: UInt = #line) {
    _ = register(S.self, file: file, line: line) { store }
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

  @usableFromInline
  func register<S>(
    _ type: S.Type, file: StaticString, line: UInt, make: () -> Store<S>
  ) -> Store<S> {
    let key = ObjectIdentifier(type)
    if let existing = lane.registered(key) as? Store<S> {
      lane.reporter.report(
        ReportedIssue(
          kind: .duplicateRegistration,
          message: "\(S.self) is already registered on '\(label)'; the first store was kept.",
          fileID: "\(file)", line: line))
      return existing
    }
    let store = make()
    _ = lane.register(store, key: key)
    return store
  }
}
