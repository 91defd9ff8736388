import Synchronization

/// The part of a store the lane routes to, independent of the state type: everything the store
/// is, while ``Store`` objects around it come and go (a registered store keeps its core, not its
/// object). The lane holds cores strongly until ``retire()``, once the last store object around
/// the core went and it is not registered, or its dispatcher went; so no lane or subscription
/// keeps a store alive.
///
/// The lane calls ``reduceOp`` and ``notifyOp``: closures made by ``StoreCore``'s inlinable
/// initializer, specialized for the state type (no metadata lookups), capturing nothing (the
/// core is an argument, so a call costs no reference counting). A class with abstract members,
/// not a protocol: the lane reads its fields as stored fields. As a protocol it measured, in
/// instructions per op (`callgrind-per-op.sh`, main 39b2cc5, 2026-11-28), class / protocol:
/// `dispatch.observers0` 235 / 311, `dispatch.observers1` 406 / 547, `transaction.two_stores`
/// 2,185 / 3,459, `queue.async1m` 692 / 770.
@usableFromInline
class AnyStoreCore: @unchecked Sendable {
  // @unchecked Sendable: immutable, or atomic (`extras`, `reducingThread`), or as documented.
  @usableFromInline let lane: Lane
  /// How many ``Store`` objects around this core are alive (under the lane's lock, or before the
  /// core is shared); see ``Dispatcher``'s registry.
  var stores = 0
  /// The store's persistence, if any: set before the core is shared, taken by ``retire()``, when
  /// no store object is left to read it.
  var persistence: (any PersistenceHandle)?
  /// What the store's effects depend on: set before the core is shared, then read only.
  @usableFromInline var dependencies = Dependencies()
  /// The live `values` streams of the store, finished by ``retire()``.
  let valueStreamEnds = ValueStreamEnds()
  /// Called by ``retire()``: removes the store's effects.
  let endOfStore = Guarded<[@Sendable () -> Void]>([])
  /// The errors of this store's effects and loads, and of the actions it handles.
  let errors = ErrorChannel()
  let handledTypes: [ObjectIdentifier]
  /// Whether the reducer has a catch-all handler, which handles every action.
  let hasCatchAll: Bool
  /// Its middleware and its watchers of every action (see ``StepEvent``): a store with any
  /// sees every action.
  @usableFromInline let extras = Atomic<Int>(0)
  /// Whether the store ran a reducer in the current step (lane only; exclusive actions reset it).
  @usableFromInline @exclusivity(unchecked) var reducedInStep = false
  /// What the store's middleware made of the current step's action (lane only; see
  /// ``Lane/finishStep(_:extras:routes:consultingMiddleware:)``).
  @exclusivity(unchecked) var middlewareOutcome = MiddlewareOutcome.passed
  /// Reduces an action (lane only); returns whether `notifyOp` must run after this step.
  @usableFromInline let reduceOp: (AnyStoreCore, ActionPayload, Int) -> Bool
  /// Calls the observers whose value changed in this step (lane only).
  @usableFromInline let notifyOp: (AnyStoreCore) -> Void
  /// Does what a transaction asks of the store (lane only; see ``TransactionStep``).
  @usableFromInline let transactionOp:
    (AnyStoreCore, TransactionStep, Dispatcher.Transaction) -> Void
  /// Whether the running transaction staged this store (lane only).
  @usableFromInline @exclusivity(unchecked) var isStaged = false
  /// The store staged after this one in the running transaction (lane only).
  @exclusivity(unchecked) var nextStaged: AnyStoreCore?
  /// Whether a transaction's `update` body holds the staged state (lane only).
  @usableFromInline @exclusivity(unchecked) var isUpdatingStaged = false
  /// Actions a transaction dispatched while `isUpdatingStaged`, reduced when the update's body
  /// returns (lane only).
  @usableFromInline @exclusivity(unchecked)
  var deferredInTransaction: [(action: any Action, slot: Int)] = []
  /// The tag (``ThreadContext/currentID``) of the thread running one of the store's reducers, or
  /// 0; written by that thread only. Readers tell a running reducer from a reader's short hold.
  @usableFromInline let reducingThread = Atomic<UInt>(0)

  /// Traps: ``StoreCore``, the only subclass, overrides every member that calls this.
  func abstract(_ member: String = #function) -> Never {
    preconditionFailure("internal inconsistency: AnyStoreCore.\(member) is abstract")
  }

  @usableFromInline
  init(
    lane: Lane, handledTypes: [ObjectIdentifier], hasCatchAll: Bool,
    reduce: @escaping (AnyStoreCore, ActionPayload, Int) -> Bool,
    notify: @escaping (AnyStoreCore) -> Void,
    transact: @escaping (AnyStoreCore, TransactionStep, Dispatcher.Transaction) -> Void
  ) {
    self.lane = lane
    self.handledTypes = handledTypes
    self.hasCatchAll = hasCatchAll
    reduceOp = reduce
    notifyOp = notify
    transactionOp = transact
  }

  /// Ends the store, once (see ``Dispatcher``'s registry), outside every lock: its persistence
  /// writes what is pending, it leaves the lane, its loads are cancelled, its effects and its
  /// `values` streams end.
  func retire() {
    persistence.take()?.close()
    lane.detach(self)
    for end in endOfStore.withLock({ ends in
      defer { ends.removeAll() }
      return ends
    }) {
      end()
    }
    valueStreamEnds.finishAll()
  }

  /// Reduces the actions a transaction dispatched while an update's body ran (lane only).
  @usableFromInline
  func reduceDeferredInTransaction() {
    let pending = deferredInTransaction
    deferredInTransaction.removeAll()
    for entry in pending { reduceInTransaction(entry.action, slot: entry.slot) }
  }

  /// Reduces a transaction's action into the staged state, or after the running update's body
  /// (lane only; the store is staged).
  func reduceInTransaction(_ action: any Action, slot: Int) { abstract() }

  var receivesEveryAction: Bool { hasCatchAll || extras.load(ordering: .relaxed) > 0 }

  func slot(for type: ObjectIdentifier) -> Int? { abstract() }

  /// The store as an attached inspector sees it, if any (under the lane's lock, or lane only).
  var inspectedStore: InspectedStore? { abstract() }

  /// Makes the store report every step to `inspector` (under the lane's lock, on the lane or
  /// before the store is routed to); the caller rebuilds the lane's routing.
  func installInspection(_ inspector: any LaneInspector) { abstract() }

  /// Forgets the inspector's view of the store and returns the gate of its watcher, to cancel
  /// and sweep out (under the lane's lock, on the lane); `nil` when the store was not inspected.
  func takeInspectionLocked() -> Gate? { abstract() }

  /// Removes cancelled observers and watchers, and observers whose owner is gone (lane only).
  func sweepObservers() { abstract() }

  /// A copy of the state to compare with later, or `nil` when the state is not `Equatable`.
  func snapshot() -> Any? { abstract() }

  /// Whether the state differs from `snapshot` (always `true` without a snapshot).
  func differs(from snapshot: Any?) -> Bool { abstract() }

  /// Removes the middleware registered under `id` (lane only).
  func removeMiddleware(id: Int) { abstract() }
}

/// A store's state, handlers, observers and middleware.
///
/// `current` is written only on the lane, under `lock` (reducers change it in place, so a large
/// state is not copied per action), and read under `lock`, or without it by the lane, its only
/// writer. "Lane only" marks what only the thread holding the lane touches. Once the store is
/// *mirrored* (see `StoreCore+Reading.swift`), `published`, under `publishedLock`, holds the
/// state after the last completed step (each step publishes before it lets `lock` go), and
/// reads never wait for a reducer.
///
/// Locks are taken in the order `lock`, then `publishedLock`. Neither is held while user code
/// runs, except `lock` around the reducers, and no value is released under either: a replaced
/// state is swapped out and let go after unlocking, because its `deinit` may read the store.
@usableFromInline
final class StoreCore<State: Sendable>: AnyStoreCore, @unchecked Sendable {
  // @unchecked Sendable: see the type's discussion.
  @usableFromInline let lock = InternalLock()
  /// Exclusivity is enforced by the lane (one writer) and `lock` (readers), not at run time.
  @usableFromInline @exclusivity(unchecked) var current: State
  /// Nonzero once mirrored (set by a reader, never cleared); 2 once a reducer's read got the
  /// initial state and was reported.
  @usableFromInline let mirrored = Atomic<Int>(0)
  /// Guards `published`; held only to copy or swap it.
  @usableFromInline let publishedLock = InternalLock()
  /// The state after the last completed step, once published: assigned from `current`, under
  /// `lock` too, by a step of a mirrored store or by a reducer's read (see `state`).
  @usableFromInline @exclusivity(unchecked) var published: State?
  @usableFromInline let initialState: State
  @usableFromInline let isEqual: (@Sendable (State, State) -> Bool)?
  /// `isEqual`, or "never equal": no optional closure to copy on the hot path. Set with `if let`,
  /// not `??`, which wraps the closure in two reabstraction thunks (about 40 instructions/call).
  @usableFromInline let equals: @Sendable (State, State) -> Bool
  @usableFromInline let table: HandlerTable<State>

  // Lane only: one thread at a time, so exclusivity is not checked at run time.
  @usableFromInline @exclusivity(unchecked) var registry = ObserverRegistry<State>()
  /// Whether any observer is registered (kept beside `registry` so the hot path is one load).
  @usableFromInline @exclusivity(unchecked) var hasObservers = false
  /// Whether the state before an action must be kept: whole-state observers of an `Equatable`
  /// state compare it with the state after.
  @usableFromInline @exclusivity(unchecked) var needsOld = false
  @usableFromInline @exclusivity(unchecked) var pendingOld: State?
  /// The running transaction's staged state, while `isStaged` (lane only); taken out while an
  /// update's body holds it.
  @usableFromInline @exclusivity(unchecked) var stagedWorking: State?
  /// The state before the running transaction, for `after` middleware and recorders (lane only).
  @usableFromInline @exclusivity(unchecked) var stagedBefore: State?
  /// Observers registered at or after this rank joined during the current step; they got the
  /// current value on registration and are not called again for this step.
  @usableFromInline @exclusivity(unchecked) var roundBoundary = 0
  /// The store's watchers, in registration order (lane only, or before the store joins it).
  @usableFromInline @exclusivity(unchecked) var watchers:
    [(kind: StepEvent<State>.Kind, sink: Sink<StepEvent<State>>)] = []
  /// The sinks of the watchers of ``StepEvent/changed``, in registration order, unretained
  /// (`watchers` owns them): the hot path walks them without touching the generic `watchers`.
  /// Recomputed by ``extrasChanged()`` whenever `watchers` changes, before any removed sink is
  /// released.
  @usableFromInline @exclusivity(unchecked) var changeWatchers:
    [Unmanaged<Sink<StepEvent<State>>>] = []
  /// ``StepEvent/changed``, made once: making and destroying it per step costs more than the
  /// persistence's own work (a multi-payload enum's value witnesses).
  @usableFromInline let changedEvent = StepEvent<State>.changed
  /// Whether a watcher wants ``StepEvent/willStep``, ``StepEvent/stepped`` (checked on every
  /// step of the slow path without touching the generic `watchers`).
  var watchesActions = false
  var watchesSteps = false
  /// Scratch for the observers to call; emptied (keeping its capacity) after each step.
  @usableFromInline @exclusivity(unchecked) var fired: [AnyObserver<State>] = []
  @usableFromInline @exclusivity(unchecked) var changedGroups: [AnyPathGroup<State>] = []
  /// How many `fire` loops are walking the registry's arrays in place (lane only).
  @usableFromInline @exclusivity(unchecked) var firing = 0
  var middleware: [(id: Int, middleware: Middleware<State>)] = []
  /// What the `before` hooks of the running step returned, one per middleware, for the `after`
  /// hooks (lane only; a transaction holds them from its publication to its end).
  var middlewareValues: [any Sendable] = []
  var nextMiddlewareID = 0
  /// The attached inspector's view of the store and the gate of the watcher reporting to it
  /// (under the lane's lock, or lane only).
  var inspection: (store: TypedInspectedStore<State>, watcher: Gate)?
  /// Creates a core; inlinable so that its lane operations are specialized for `State`.
  @inlinable
  init(
    initialState: State, reducer: Reducer<State>, lane: Lane,
    isEqual: (@Sendable (State, State) -> Bool)?
  ) {
    current = initialState
    self.initialState = initialState
    self.isEqual = isEqual
    if let isEqual { equals = isEqual } else { equals = { _, _ in false } }
    let table = HandlerTable(reducer)
    self.table = table
    super.init(
      lane: lane, handledTypes: table.handledTypes, hasCatchAll: table.hasCatchAll,
      reduce: { core, payload, slot in
        unsafeDowncast(core, to: StoreCore<State>.self).reduce(payload, slot: slot)
      },
      notify: { core in unsafeDowncast(core, to: StoreCore<State>.self).notify() },
      transact: { core, step, transaction in
        unsafeDowncast(core, to: StoreCore<State>.self).transact(step, in: transaction)
      })
  }

  override func slot(for type: ObjectIdentifier) -> Int? { table.slot(for: type) }

  /// Recomputes the flags the hot path reads, after the registry changed (lane only).
  @usableFromInline
  func registryChanged() {
    hasObservers = !registry.isEmpty || !changeWatchers.isEmpty
    needsOld = isEqual != nil && !registry.wholes.isEmpty
    if !needsOld { pendingOld = nil }
  }

  // MARK: - Reducing

  /// Reduces the action `payload` points at with the handlers of `slot` (lane only; inlined
  /// into ``AnyStoreCore/reduceOp``); returns whether `notify()` must run after this step.
  @inlinable @inline(__always)
  func reduce(_ payload: ActionPayload, slot: Int) -> Bool {
    if extras.load(ordering: .relaxed) > 0 { return reduceWithExtras(payload.boxed()) }
    guard hasObservers else {
      apply(slot: slot, payload: payload)
      return false
    }
    roundBoundary = registry.nextOrderPeek
    if needsOld { pendingOld = current }
    apply(slot: slot, payload: payload)
    return true
  }

  /// Runs the reducers of `slot` on `current`, in place, under `lock`, and publishes the result
  /// when the store is mirrored (lane only). Marking the reducer as running costs a few stores
  /// (the thread's tag is the address of its reducer depth).
  @inlinable @inline(__always)
  func apply(slot: Int, payload: ActionPayload) {
    reducedInStep = true
    let depth = ReducerContext.depth
    lock.lock()
    reducingThread.store(UInt(bitPattern: depth), ordering: .relaxed)
    depth.pointee &+= 1
    table.run(slot: slot, state: &current, payload: payload)
    reducingThread.store(0, ordering: .relaxed)
    depth.pointee &-= 1
    if mirrored.load(ordering: .relaxed) != 0 {
      publishAndUnlock()
    } else {
      lock.unlock()
    }
  }

  /// Publishes `current` and lets `lock` go (the caller holds it); the replaced published state
  /// is released after unlocking.
  @usableFromInline
  func publishAndUnlock() {
    var replaced: State? = current
    publishedLock.lock()
    swap(&published, &replaced)
    publishedLock.unlock()
    lock.unlock()
    // Released here, outside the locks: a deinit may read the store.
    withExtendedLifetime(replaced) {}
  }

  /// Replaces `current` with `new` (and publishes it, when the store is mirrored) under `lock`;
  /// the replaced values are released after unlocking (lane only).
  @inlinable
  func setCurrent(_ new: State) {
    var replaced = new
    lock.lock()
    swap(&current, &replaced)
    if mirrored.load(ordering: .relaxed) != 0 {
      publishAndUnlock()
    } else {
      lock.unlock()
    }
    // Released here, outside the lock: a deinit may read the store.
    withExtendedLifetime(replaced) {}
  }

  /// The slow path, for stores with middleware or watchers of every action.
  @usableFromInline
  func reduceWithExtras(_ original: any Action) -> Bool {
    middlewareOutcome = .passed
    roundBoundary = registry.nextOrderPeek
    let before = current
    if watchesActions { tell(.willStep, .willStep(original, before: before)) }
    var action = original
    for entry in middleware {
      guard let intercept = entry.middleware.intercept else { continue }
      switch intercept(action, before) {
      case .proceed: continue
      case .replace(let replacement):
        action = replacement
        middlewareOutcome = .replaced(replacement)
      case .drop:
        middlewareOutcome = .dropped
        record(original, before: before, reduced: false)
        return false
      }
    }
    // A store that does not handle the action runs neither hook, so every `before` has its
    // `after`.
    guard let slot = table.resolvedSlot(for: ObjectIdentifier(type(of: action))) else {
      record(original, before: before, reduced: false)
      return false
    }
    runBefore(action, before: before)
    ActionPayload.with(boxed: action) { apply(slot: slot, payload: $0) }
    runAfter(action, before: before)
    record(original, before: before, reduced: true, replacement: action)
    if needsOld { pendingOld = before }
    return hasObservers
  }

  /// Runs every `before` middleware, in order, keeping what each returns (lane only).
  func runBefore(_ action: any Action, before: State) {
    for entry in middleware {
      middlewareValues.append(entry.middleware.before?(action, before) ?? ())
    }
  }

  /// Runs every `after` middleware, last first, each with what its `before` returned; each
  /// value is taken out of `middlewareValues` first, and released under no lock, after its
  /// hook (lane only).
  func runAfter(_ action: any Action, before: State) {
    let after = current
    for entry in middleware.reversed() {
      let value = middlewareValues.popLast() ?? ()
      entry.middleware.after?(action, before, after, value)
    }
  }

  /// Hands a step to the watchers of ``StepEvent/stepped``, if any (lane only).
  func record(
    _ action: any Action, before: State, reduced: Bool, replacement: (any Action)? = nil
  ) {
    guard watchesSteps else { return }
    let id = ObjectIdentifier(type(of: action))
    let handled = table.slot(for: id) != nil || table.hasCatchAll
    let handledElsewhere =
      !handled
      && lane.routeCores(for: type(of: action)).contains { core in
        core !== self && core.slot(for: id) != nil
      }
    var reducedInstead: (any Action)?
    if case .replaced = middlewareOutcome { reducedInstead = replacement }
    let step = StepRecord(
      action: action, before: before, after: current, reduced: reduced, handled: handled,
      handledElsewhere: handledElsewhere, replacement: reducedInstead)
    tell(.stepped, .stepped(step))
  }

  /// Replaces the whole state on the lane and notifies, like an action would.
  func replaceState(with newState: State) {
    roundBoundary = registry.nextOrderPeek
    let before: State? = inspection == nil ? nil : current
    if needsOld { pendingOld = current }
    setCurrent(newState)
    if let inspection, let before, let inspector = lane.activeInspector {
      inspector.storeReplaced(inspection.store, before: before, after: current)
    }
    if hasObservers { notify() }
  }

  override var inspectedStore: InspectedStore? { inspection?.store }

  override func installInspection(_ inspector: any LaneInspector) {
    guard inspection == nil else { return }
    let store = TypedInspectedStore(core: self)
    let sink = Sink<StepEvent<State>>(delivery: .synchronous) { event in
      guard case .stepped(let step) = event else { return }
      inspector.storeStepped(
        store, action: step.action, before: step.before, after: step.after,
        reduced: step.reduced, handled: step.handled, replacement: step.replacement)
    }
    watchers.append((.stepped, sink))
    extrasChanged()
    inspection = (store, sink.gate)
  }

  override func takeInspectionLocked() -> Gate? {
    defer { inspection = nil }
    return inspection?.watcher
  }

  override func sweepObservers() {
    sweep()
    guard watchers.contains(where: { $0.sink.gate.isCancelled }) else { return }
    // The removed watchers are released once the core is consistent again, under no lock:
    // a deinit may call back into the store.
    let all = watchers
    watchers = all.filter { !$0.sink.gate.isCancelled }
    if extrasChanged() { lane.rebuildRouting() }
    withExtendedLifetime(all) {}
  }

  override func reduceInTransaction(_ action: any Action, slot: Int) {
    guard !isUpdatingStaged else {
      deferredInTransaction.append((action, slot))
      return
    }
    var working = stagedWorking.take() ?? current
    table.run(slot: slot, state: &working, action: action)
    stagedWorking = working
  }

  override func snapshot() -> Any? { isEqual == nil ? nil : current }

  override func differs(from snapshot: Any?) -> Bool {
    guard let isEqual, let old = snapshot as? State else { return true }
    return !isEqual(old, current)
  }

  override func removeMiddleware(id: Int) {
    guard let index = middleware.firstIndex(where: { $0.id == id }) else { return }
    let removed = middleware.remove(at: index)
    if extrasChanged() { lane.rebuildRouting() }
    withExtendedLifetime(removed) {}  // Released here, once the core is consistent again.
  }
}
