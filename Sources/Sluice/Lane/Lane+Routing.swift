/// Where one action type goes: the stores that handle it, in lane order, each with the slot of
/// its handlers for that type (`-1`: the store sees every action but has no handler for this one).
///
/// Routes hold their core unmanaged, so following one costs no reference counting; a detached
/// core stays alive while a drainer may follow a cached route to it
/// (``LaneStateMachine/retire(_:)``).
struct Route {
  private let unmanagedCore: Unmanaged<AnyStoreCore>
  let slot: Int

  init(core: AnyStoreCore, slot: Int) {
    unmanagedCore = Unmanaged.passUnretained(core)
    self.slot = slot
  }

  /// The store the route leads to.
  var core: AnyStoreCore { unmanagedCore.takeUnretainedValue() }

  /// Reduces the action `payload` points at into the store, without retaining it (drainer
  /// only); returns whether the store must be notified after the step.
  @inline(__always)
  func reduce(_ payload: ActionPayload) -> Bool {
    unmanagedCore._withUnsafeGuaranteedRef { $0.reduceOp($0, payload, slot) }
  }

  /// Calls the store's observers whose value changed in this step (drainer only).
  @inline(__always)
  func notify() {
    unmanagedCore._withUnsafeGuaranteedRef { $0.notifyOp($0) }
  }
}

/// The lane's routing table, rebuilt whenever a store attaches, detaches, starts or stops
/// receiving every action, or an ordering is declared.
struct Routing {
  var byType: [ObjectIdentifier: [Route]] = [:]
  /// The route of an action type no store handles by type: the stores that see every action.
  var everyAction: [Route] = []
  /// The effects of each action type, in registration order.
  var effects: [ObjectIdentifier: [EffectRegistration]] = [:]
}

/// Where one action type goes, and what runs after its reducers.
struct TypeRoute {
  let routes: [Route]
  let extras: StepExtras?
}

/// What runs after the reducers of an action type: its effects, the report of the error it
/// carries, and the reading of what the stores' middleware decided.
final class StepExtras {
  let effects: [EffectRegistration]
  let carriesErrors: Bool
  /// Whether a store on the route has middleware (or taps), which may drop or replace the
  /// action.
  let mayIntercept: Bool

  init(effects: [EffectRegistration], carriesErrors: Bool, mayIntercept: Bool) {
    self.effects = effects
    self.carriesErrors = carriesErrors
    self.mayIntercept = mayIntercept
  }
}

extension Lane {
  /// Attaches `core`, and adds `registrations` (its effects) in the same step: no action is
  /// routed to the store without its effects.
  func attach(_ core: AnyStoreCore, effects registrations: [EffectRegistration] = []) {
    let replaced = lock.withLock {
      effectRegistrations.append(contentsOf: registrations)
      return attachLocked(core)
    }
    _ = replaced  // Released here, outside the lock.
  }

  /// Adds `core` to the stores and routing (under `lock`); returns the replaced routing table.
  func attachLocked(_ core: AnyStoreCore) -> Routing {
    if let inspector { core.installInspection(inspector) }
    cores.append(core)
    return rebuildRoutingLocked()
  }

  func detach(_ core: AnyStoreCore) {
    let id = ObjectIdentifier(core)
    var forgotten: ForgottenRoutes?
    let (released, inspector, store) = lock.withLock {
      cores.removeAll { $0 === core }
      orderEdges.removeAll { $0.store == id || $0.after == id }
      let replaced = rebuildRoutingLocked()
      let retired = storage.withMachineLocked { machine in
        let retired = machine.retire(core)
        // Handed back: no thread runs the lane, and none can claim it, not even with the
        // shortcut, until this transition ends.
        if retired != nil { forgotten = forgetRoutes() }
        return retired
      }
      return ((replaced, retired), self.inspector, core.inspectedStore)
    }
    // Released here, outside the lock: a core's deinit may take other locks.
    withExtendedLifetime((released, forgotten)) {}
    if let inspector, let store {
      // The attached inspector forgets the store, on the lane, after what is queued there.
      perform(.query, .none) { [self] in
        if activeInspector === inspector { inspector.storeLeft(store) }
      }
    }
  }

  /// The attached core with this identity, if any.
  func core(_ id: ObjectIdentifier) -> AnyStoreCore? {
    lock.withLock { cores.first { ObjectIdentifier($0) == id } }
  }

  /// Adds effect registrations to the routing table.
  func addEffects(_ registrations: [EffectRegistration]) {
    guard !registrations.isEmpty else { return }
    rebuildRouting { effectRegistrations.append(contentsOf: registrations) }
  }

  /// Removes a group of effect registrations and cancels its runs in flight. The removed
  /// registrations and the replaced table (closures the user wrote) are released after the lock.
  func removeEffects(group: EffectGroup) {
    let released = lock.withLock { () -> ([EffectRegistration], Routing?) in
      let before = effectRegistrations
      effectRegistrations.removeAll { $0.group == group }
      guard effectRegistrations.count != before.count else { return (before, nil) }
      return (before, rebuildRoutingLocked())
    }
    withExtendedLifetime(released) {}
    effects.cancel(group: group)
  }

  /// Makes `change` under `lock` and rebuilds the routing table; the replaced table is released
  /// after the lock.
  func rebuildRouting(after change: () -> Void = {}) {
    let replaced = lock.withLock {
      change()
      return rebuildRoutingLocked()
    }
    _ = replaced
  }

  /// Declares that `core` reduces every action after `other`. Returns `false` (and changes
  /// nothing) when `other` already waits for `core`, directly or not.
  func order(_ core: AnyStoreCore, after other: AnyStoreCore) -> Bool {
    let id = ObjectIdentifier(core)
    let otherID = ObjectIdentifier(other)
    let (ordered, replaced) = lock.withLock { () -> (Bool, Routing?) in
      if id == otherID || waits(otherID, for: id) { return (false, nil) }
      orderEdges.append((store: id, after: otherID))
      return (true, rebuildRoutingLocked())
    }
    _ = replaced  // Released here, outside the lock.
    return ordered
  }

  /// The attached stores in processing order.
  var orderedCores: [AnyStoreCore] { lock.withLock { orderedCoresLocked() } }

  private func waits(_ store: ObjectIdentifier, for target: ObjectIdentifier) -> Bool {
    var stack = [store]
    var seen: Set<ObjectIdentifier> = []
    while let next = stack.popLast() {
      if next == target { return true }
      guard seen.insert(next).inserted else { continue }
      stack.append(contentsOf: orderEdges.filter { $0.store == next }.map(\.after))
    }
    return false
  }

  /// Attach order, except that a store comes after every store it waits for (a stable
  /// topological sort: among the stores ready to go, the earliest attached goes first).
  private func orderedCoresLocked() -> [AnyStoreCore] {
    guard !orderEdges.isEmpty else { return cores }
    var placed: Set<ObjectIdentifier> = []
    var remaining = cores
    var ordered: [AnyStoreCore] = []
    ordered.reserveCapacity(cores.count)
    while !remaining.isEmpty {
      let index =
        remaining.firstIndex { core in
          let id = ObjectIdentifier(core)
          return orderEdges.allSatisfy { $0.store != id || placed.contains($0.after) }
        } ?? 0  // Unreachable: `order(_:after:)` refuses cycles.
      let core = remaining.remove(at: index)
      placed.insert(ObjectIdentifier(core))
      ordered.append(core)
    }
    return ordered
  }

  /// Rebuilds the routing table (under `lock`); returns the replaced one, to release after it.
  func rebuildRoutingLocked() -> Routing {
    let ordered = orderedCoresLocked()
    var types: Set<ObjectIdentifier> = []
    for core in ordered { types.formUnion(core.handledTypes) }
    var table = Routing()
    for type in types {
      table.byType[type] = ordered.compactMap { core in
        if let slot = core.slot(for: type) { return Route(core: core, slot: slot) }
        return core.receivesEveryAction ? Route(core: core, slot: -1) : nil
      }
    }
    table.everyAction = ordered.filter(\.receivesEveryAction).map { Route(core: $0, slot: -1) }
    for registration in effectRegistrations {
      table.effects[registration.actionType, default: []].append(registration)
    }
    let replaced = routing
    routing = table
    routingVersion.wrappingAdd(1, ordering: .releasing)
    return replaced
  }
}
