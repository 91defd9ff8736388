import Synchronization

/// The part of a store the lane routes to, independent of the state type.
///
/// The lane holds cores strongly; the public ``Store`` holds its core and detaches it from the
/// lane when it is deinitialized, so no lane or subscription keeps a store alive.
class AnyStoreCore: @unchecked Sendable {
  // @unchecked Sendable: immutable, or atomic (`extras`).
  let lane: Lane
  let handledTypes: [ObjectIdentifier]
  private let hasCatchAll: Bool
  /// Middleware and `onAction` taps: a store with any sees every action.
  let extras = Atomic<Int>(0)

  init(lane: Lane, handledTypes: [ObjectIdentifier], hasCatchAll: Bool) {
    self.lane = lane
    self.handledTypes = handledTypes
    self.hasCatchAll = hasCatchAll
  }

  var receivesEveryAction: Bool { hasCatchAll || extras.load(ordering: .relaxed) > 0 }

  func slot(for type: ObjectIdentifier) -> Int? {
    preconditionFailure("internal inconsistency: AnyStoreCore.slot is abstract")
  }

  /// Reduces `action` (lane only); returns whether ``notify()`` must run after this step.
  func reduce(_ action: any Action, slot: Int) -> Bool {
    preconditionFailure("internal inconsistency: AnyStoreCore.reduce is abstract")
  }

  /// Calls the observers whose value changed in this step (lane only).
  func notify() {
    preconditionFailure("internal inconsistency: AnyStoreCore.notify is abstract")
  }
}

/// A store's state, handlers, observers and middleware.
///
/// `state` is written only on the lane, under `lock`, and read from any thread under `lock`;
/// the lane itself reads it without the lock (it is the only writer). Everything marked "lane
/// only" is touched only by the thread holding the lane.
final class StoreCore<State: Sendable>: AnyStoreCore, @unchecked Sendable {
  // @unchecked Sendable: see the type's discussion.
  private let lock = InternalLock()
  private var current: State
  private let reducingThread = Atomic<UInt>(0)
  let initialState: State
  let isEqual: (@Sendable (State, State) -> Bool)?
  private let table: HandlerTable<State>

  // Lane only.
  var registry = ObserverRegistry<State>()
  var middleware: [(id: Int, middleware: Middleware<State>)] = []
  var taps: [Sink<ActionEvent<State>>] = []
  var nextMiddlewareID = 0
  private var pendingOld: State?
  private var roundBoundary = 0
  private var fired: [AnyObserver<State>] = []
  private var changedGroups: [AnyPathGroup<State>] = []

  init(
    initialState: State, reducer: Reducer<State>, lane: Lane,
    isEqual: (@Sendable (State, State) -> Bool)?
  ) {
    current = initialState
    self.initialState = initialState
    self.isEqual = isEqual
    table = HandlerTable(reducer)
    super.init(lane: lane, handledTypes: table.handledTypes, hasCatchAll: table.hasCatchAll)
  }

  /// The state, from any thread.
  var state: State {
    if lock.tryLock() {
      defer { lock.unlock() }
      return current
    }
    if reducingThread.load(ordering: .relaxed) == ThreadContext.currentID {
      lane.reporter.report(
        Issue(
          kind: .stateReadInsideReducer,
          message:
            "Store<\(State.self)>.state was read from inside one of its own reducers; use the "
            + "state the reducer receives. The initial state was returned instead.",
          fileID: #fileID, line: #line))
      return initialState
    }
    lock.lock()
    defer { lock.unlock() }
    return current
  }

  /// The state as the lane sees it (lane only: the lane is the only writer).
  var laneState: State { current }

  override func slot(for type: ObjectIdentifier) -> Int? { table.slot(for: type) }

  // MARK: - Reducing

  override func reduce(_ action: any Action, slot: Int) -> Bool {
    if extras.load(ordering: .relaxed) > 0 { return reduceWithExtras(action) }
    roundBoundary = registry.nextOrderPeek
    if isEqual != nil, !registry.wholes.isEmpty { pendingOld = current }
    apply(slot: slot, action: action)
    return !registry.isEmpty
  }

  @inline(__always)
  private func apply(slot: Int, action: any Action) {
    lock.lock()
    reducingThread.store(ThreadContext.currentID, ordering: .relaxed)
    table.run(slot: slot, state: &current, action: action)
    reducingThread.store(0, ordering: .relaxed)
    lock.unlock()
  }

  /// The slow path, for stores with middleware or `onAction` taps.
  private func reduceWithExtras(_ original: any Action) -> Bool {
    roundBoundary = registry.nextOrderPeek
    let before = current
    for tap in taps where !tap.gate.isCancelled {
      tap.send(ActionEvent(action: original, stateBefore: before))
    }
    var action = original
    for entry in middleware {
      guard let intercept = entry.middleware.intercept else { continue }
      switch intercept(action, before) {
      case .proceed: continue
      case .replace(let replacement): action = replacement
      case .drop: return false
      }
    }
    for entry in middleware { entry.middleware.before?(action, before) }
    guard let slot = table.resolvedSlot(for: ObjectIdentifier(type(of: action))) else {
      return false
    }
    apply(slot: slot, action: action)
    let after = current
    for entry in middleware.reversed() { entry.middleware.after?(action, before, after) }
    if isEqual != nil, !registry.wholes.isEmpty { pendingOld = before }
    return !registry.isEmpty
  }

  /// Replaces the whole state on the lane and notifies, like an action would.
  func replaceState(with newState: State) {
    roundBoundary = registry.nextOrderPeek
    if isEqual != nil, !registry.wholes.isEmpty { pendingOld = current }
    lock.withLock { current = newState }
    if !registry.isEmpty { notify() }
  }

  // MARK: - Notifying

  override func notify() {
    let new = current
    var wholeChanged = !registry.wholes.isEmpty
    if wholeChanged, let isEqual, let old = pendingOld { wholeChanged = !isEqual(old, new) }
    pendingOld = nil

    for group in registry.groups where group.check(new) { changedGroups.append(group) }
    if changedGroups.isEmpty {
      if wholeChanged { fire(registry.wholes, with: new) }
      return
    }
    let sources = changedGroups.count + (wholeChanged ? 1 : 0)
    if wholeChanged { fired.append(contentsOf: registry.wholes) }
    for group in changedGroups { fired.append(contentsOf: group.members) }
    changedGroups.removeAll(keepingCapacity: true)
    // Each source is in registration order already; merge them when there are several.
    if sources > 1 { fired.sort { $0.order < $1.order } }
    let batch = fired
    fired.removeAll(keepingCapacity: true)
    fire(batch, with: new)
  }

  @inline(__always)
  private func fire(_ observers: [AnyObserver<State>], with state: State) {
    var needsSweep = false
    for observer in observers where observer.order < roundBoundary {
      if observer.gate.isCancelled {
        needsSweep = true
        continue
      }
      observer.fire(state)
      if observer.gate.isCancelled { needsSweep = true }
    }
    if needsSweep { registry.sweep() }
  }
}

/// What an `onAction` tap receives: the action and the state before it was reduced.
struct ActionEvent<State: Sendable>: Sendable {
  let action: any Action
  let stateBefore: State
}
