/// The lane's one ``Dispatcher`` (`current`, weak; held strongly in `held` while a store that is
/// not registered is attached) and what lives with it: the store registry and the dispatcher's
/// effects. Registered stores do not hold it (the cycle dispatcher → registry → store → lane →
/// dispatcher). See ``Dispatcher``'s *Identity and lifetime*.
struct LaneHandle {
  /// The dispatcher of the lane, if one exists.
  weak var current: Dispatcher?
  /// `current`, held while an attached store is not registered.
  var held: Dispatcher?
  /// The registered stores, by state type.
  var registry: [ObjectIdentifier: AnyStore] = [:]
  /// The groups of the effects registered on the dispatcher, removed when it goes.
  var effectGroups: [EffectGroup] = []
}

extension Lane {
  /// The lane's dispatcher: the same object while anything holds it; a new one once it went.
  var dispatcher: Dispatcher {
    if let existing = lock.withLock({ handle.current }) { return existing }
    let made = Dispatcher(lane: self)
    let (chosen, leftovers) = lock.withLock { () -> (Dispatcher, LaneHandle?) in
      // Another thread may have made one meanwhile: the first one made wins.
      if let existing = handle.current { return (existing, nil) }
      let leftovers = takeLeftoversLocked()
      handle.current = made
      // Held from now on when a store that is not registered is attached (`held` was `nil`:
      // it holds `current`, which was gone).
      _ = reconcileHoldLocked()
      return (made, leftovers)
    }
    release(leftovers)
    return chosen
  }

  /// Makes `dispatcher` the handle of this new lane.
  func install(_ dispatcher: Dispatcher) {
    lock.withLock { handle.current = dispatcher }
  }

  /// Called when a dispatcher of this lane is deinitialized: its registry and effects go, unless
  /// a newer dispatcher took them over already.
  func dispatcherGone() {
    // `current` reads `nil` once the dispatcher's deinitialization started.
    release(lock.withLock { handle.current == nil ? takeLeftoversLocked() : nil })
  }

  /// Takes what a dispatcher that is gone left (under `lock`; `held` is `nil` with it).
  private func takeLeftoversLocked() -> LaneHandle {
    defer { handle = LaneHandle() }
    return handle
  }

  /// Releases what a dispatcher left, outside `lock`: its registered stores are deinitialized
  /// (unless the program holds them), its effects removed and cancelled.
  private func release(_ leftovers: LaneHandle?) {
    for group in leftovers?.effectGroups ?? [] { removeEffects(group: group) }
    _ = leftovers  // The stores are released here, outside the lock.
  }

  /// Holds the current dispatcher while an attached store is not registered, and lets go of it
  /// otherwise (under `lock`); returns the hold let go of, to release after the lock.
  func reconcileHoldLocked() -> Dispatcher? {
    if cores.count > handle.registry.count {
      if handle.held == nil { handle.held = handle.current }
      return nil
    }
    return handle.held.take()
  }

  /// Registers `store` under `key`, unless a store is registered there already; returns the
  /// store registered under `key` and whether it is `store`.
  func register(_ store: AnyStore, key: ObjectIdentifier) -> (registered: AnyStore, isNew: Bool) {
    let (result, hold) = lock.withLock { () -> ((AnyStore, Bool), Dispatcher?) in
      if let existing = handle.registry[key] { return ((existing, false), nil) }
      handle.registry[key] = store
      return ((store, true), reconcileHoldLocked())
    }
    _ = hold  // Released here, outside the lock.
    return result
  }

  /// Registers under `key` the store `make` creates around a core that is not attached, unless
  /// a store is registered there already; returns the store registered under `key` and whether
  /// it was created now. One step under the lock (`make` runs no user code, releases nothing):
  /// racing callers create one store.
  func registerNew(
    key: ObjectIdentifier, make: () -> AnyStore
  ) -> (store: AnyStore, isNew: Bool) {
    let (result, replaced) = lock.withLock { () -> ((AnyStore, Bool), Routing?) in
      if let existing = handle.registry[key] { return ((existing, false), nil) }
      let store = make()
      let replaced = attachLocked(store.anyCore)
      handle.registry[key] = store
      // One more store attached, and registered: the hold is unchanged.
      return ((store, true), replaced)
    }
    _ = replaced  // Released here, outside the lock.
    return result
  }

  /// The store registered under `key`, if any.
  func registered(_ key: ObjectIdentifier) -> AnyStore? {
    lock.withLock { handle.registry[key] }
  }

  /// Forgets the store registered under `key`; it is deinitialized (outside the lock) when
  /// nothing else holds it.
  func unregister(_ key: ObjectIdentifier) {
    let removed = lock.withLock { () -> (AnyStore?, Dispatcher?) in
      let store = handle.registry.removeValue(forKey: key)
      return (store, reconcileHoldLocked())
    }
    _ = removed  // Released here, outside the lock: its deinit detaches it from the lane.
  }

  /// Adds the effects of the dispatcher, as one group that goes with the dispatcher.
  func addDispatcherEffects(_ registrations: [EffectRegistration], group: EffectGroup) {
    rebuildRouting {
      handle.effectGroups.append(group)
      effectRegistrations.append(contentsOf: registrations)
    }
  }
}
