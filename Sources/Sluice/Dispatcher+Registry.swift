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
/// let store = dispatcher.store(CurrentUser.self)  // the registered store, with its state
/// ```
public protocol StoreDefinition: Sendable {
  /// The state a new store starts with.
  static var initialState: Self { get }
  /// The reducer of the store, with the effects its handlers carry.
  static var reducer: Reducer<Self> { get }
}

/// What a dispatcher keeps (under its lane's lock): the cores of its registered stores, each with
/// the store object around it the program may still hold, and the groups of its effects.
///
/// The registry keeps cores, not ``Store`` objects: a store object holds its dispatcher, so a
/// registry of store objects would be a cycle. A registered store's object is made again when the
/// program let go of every one (``Dispatcher/store(_:)``); the core counts its live objects
/// (``AnyStoreCore/stores``), so that it ends (``AnyStoreCore/retire()``) exactly once: when its
/// last object went and it is not registered, when it is unregistered with no object left, or
/// when the dispatcher goes.
struct Registry {
  struct Entry {
    let core: AnyStoreCore
    /// The store object around `core`, while anybody holds it.
    weak var store: AnyStore?
  }

  var entries: [ObjectIdentifier: Entry] = [:]
  var effectGroups: [EffectGroup] = []
}

extension Dispatcher {
  /// Creates the store of `type` on this dispatcher and keeps it for the dispatcher's lifetime.
  ///
  /// Registering a type twice is reported and returns the store registered first. Threads
  /// registering one type at once get one store: exactly one is created (each caller may read
  /// `S.initialState` and `S.reducer`). A registered store lives while its dispatcher lives (see
  /// "Identity and lifetime" in ``Dispatcher``).
  @inlinable @discardableResult
  public func register<S: StoreDefinition>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) { lane in
      let reducer = S.reducer
      return (
        StoreCore(initialState: S.initialState, reducer: reducer, lane: lane, isEqual: nil),
        reducer.effects
      )
    }
  }

  /// Creates the store of `type` on this dispatcher and keeps it for the dispatcher's lifetime;
  /// its observers fire only on real changes.
  @inlinable @discardableResult
  public func register<S: StoreDefinition & Equatable>(
    _ type: S.Type, file: StaticString = #fileID, line: UInt = #line
  ) -> Store<S> {
    register(type, file: file, line: line) { lane in
      let reducer = S.reducer
      return (
        StoreCore(
          initialState: S.initialState, reducer: reducer, lane: lane, isEqual: { $0 == $1 }),
        reducer.effects
      )
    }
  }

  /// Keeps `store` for the dispatcher's lifetime, retrievable by its state type.
  ///
  /// The store must be on this dispatcher: a store of another dispatcher is reported as
  /// ``ReportedIssue/Kind/foreignStore`` and not registered. Registering a state type twice is
  /// reported and keeps the first store. Once registered, the store lives while its dispatcher
  /// lives, whether the program holds it or not (see "Identity and lifetime" in ``Dispatcher``).
  public func register<S>(_ store: Store<S>, file: StaticString = #fileID, line: UInt = #line) {
    guard store.dispatcher === self else {
      lane.report(
        .foreignStore,
        "register(_:) was given a Store<\(S.self)> of another dispatcher; it was not "
          + "registered on '\(label)'.", file: file, line: line)
      return
    }
    let isNew = lane.lock.withLock {
      let key = ObjectIdentifier(S.self)
      guard registry.entries[key] == nil else { return false }
      registry.entries[key] = Registry.Entry(core: store.core, store: store)
      return true
    }
    if !isNew { reportDuplicate(S.self, file: file, line: line) }
  }

  /// The store registered for `type`, if any: while anybody holds it, the same object every time.
  public func store<S>(_ type: S.Type) -> Store<S>? {
    lane.lock.withLock { storeLocked(type) }
  }

  /// Forgets the store registered for `type`; it ends when nothing else holds it (at once when
  /// nothing does).
  public func unregister<S>(_ type: S.Type) {
    let (entry, ends) = lane.lock.withLock { () -> (Registry.Entry?, Bool) in
      let entry = registry.entries.removeValue(forKey: ObjectIdentifier(type))
      return (entry, entry?.core.stores == 0)
    }
    if ends, let entry { entry.core.retire() }
  }

  /// A store object around `core` went: the core ends when it was the last and the core is not
  /// registered (under `key`, its state type).
  func storeGone(_ core: AnyStoreCore, key: ObjectIdentifier) {
    let ends = lane.lock.withLock {
      core.stores -= 1
      return core.stores == 0 && registry.entries[key]?.core !== core
    }
    if ends { core.retire() }
  }

  /// Registers the store of `type`, made from the core `makeCore` returns with the effects of
  /// its reducer, unless one is registered already: the core is made outside every lock (its
  /// definition is user code), and the store around it is created, attached with its effects
  /// and registered in one step of the lane's lock, so racing callers create one store.
  @usableFromInline
  func register<S>(
    _ type: S.Type, file: StaticString, line: UInt,
    makeCore: (Lane) -> (StoreCore<S>, Effects<S>)
  ) -> Store<S> {
    if let existing = store(type) {
      reportDuplicate(S.self, file: file, line: line)
      return existing
    }
    let (core, effects) = makeCore(lane)
    let registrations = Store.initialEffectRegistrations(effects, core: core)
    let (store, replaced) = lane.lock.withLock { () -> (Store<S>, Routing?) in
      if let existing = storeLocked(type) { return (existing, nil) }
      let store = Store(wrapping: core, dispatcher: self)
      registry.entries[ObjectIdentifier(type)] = Registry.Entry(core: core, store: store)
      lane.effectRegistrations.append(contentsOf: registrations)
      return (store, lane.attachLocked(core))
    }
    // A losing caller's core was never attached; it is released here, outside the lock.
    if replaced == nil { reportDuplicate(S.self, file: file, line: line) }
    return store
  }

  /// The store registered for `type`: its live object, or a new one around its core (under the
  /// lane's lock; a store object loaded from `entries` is returned, never released here).
  private func storeLocked<S>(_ type: S.Type) -> Store<S>? {
    let key = ObjectIdentifier(type)
    guard let entry = registry.entries[key], let core = entry.core as? StoreCore<S> else {
      return nil
    }
    if let live = entry.store as? Store<S> { return live }
    let made = Store(wrapping: core, dispatcher: self)
    registry.entries[key]?.store = made
    return made
  }

  private func reportDuplicate<S>(_ type: S.Type, file: StaticString, line: UInt) {
    lane.report(
      .duplicateRegistration,
      "\(S.self) is already registered on '\(label)'; the first store was kept.", file: file,
      line: line)
  }
}
