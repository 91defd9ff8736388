/// A store on an inspected lane, seen without its state type: its name, its state, and its
/// reducer as a pure function, so that an inspector can replay actions in a fork without
/// touching the store.
///
/// It holds the store's lane and identity, not the store: a store that goes away makes
/// ``currentState()`` return `nil` and ``replaceState(with:)`` return `false`.
package class InspectedStore: @unchecked Sendable {
  // @unchecked Sendable: immutable; the lane is Sendable.
  /// The identity of the store's core while it lives (compare inspected stores by the identity
  /// of this object instead: a core's address can be reused once it is gone).
  package let id: ObjectIdentifier
  /// The name of its state type (`TodoState`).
  package let name: String
  let lane: Lane

  init(id: ObjectIdentifier, name: String, lane: Lane) {
    self.id = id
    self.name = name
    self.lane = lane
  }

  /// The store's state now; `nil` when the store is gone.
  package func currentState() -> (any Sendable)? {
    preconditionFailure("internal inconsistency: InspectedStore.currentState is abstract")
  }

  /// The state the store started with.
  package var initialState: any Sendable {
    preconditionFailure("internal inconsistency: InspectedStore.initialState is abstract")
  }

  /// The state `action` leaves `state` in, through the store's reducer alone (no middleware,
  /// observer or effect); `nil` when the store has no handler for it or `state` is not of the
  /// store's state type.
  package func reduce(_ state: any Sendable, _ action: any Action) -> (any Sendable)? {
    preconditionFailure("internal inconsistency: InspectedStore.reduce is abstract")
  }

  /// The store's observers, read on its lane (after what is queued there); empty when the
  /// store is gone.
  package func observers() async -> [InspectedObserver] {
    let found = Guarded<[InspectedObserver]>([])
    await lane.performAsync(.query) { [self] in
      let observers = observersOnLane()
      found.withLock { $0 = observers }
    }
    return found.withLock { $0 }
  }

  /// The store's observers (lane only).
  func observersOnLane() -> [InspectedObserver] {
    preconditionFailure("internal inconsistency: InspectedStore.observersOnLane is abstract")
  }

  /// Replaces the states of several stores of one lane in one piece of lane work, so no action
  /// runs between two of the replacements; returns the stores replaced (a store that is gone,
  /// or a state of another type, is left out).
  package static func replaceStates(_ replacements: [(store: InspectedStore, state: any Sendable)])
    async -> [InspectedStore]
  {
    guard let lane = replacements.first?.store.lane else { return [] }
    let done = Guarded<[InspectedStore]>([])
    await lane.performAsync(.change) {
      for replacement in replacements where replacement.store.lane === lane {
        if replacement.store.replaceOnLane(with: replacement.state) {
          done.withLock { $0.append(replacement.store) }
        }
      }
    }
    return done.withLock { $0 }
  }

  /// Replaces the store's state now (lane only); `false` when the state is not of the store's
  /// type or the store is gone.
  func replaceOnLane(with state: any Sendable) -> Bool {
    preconditionFailure("internal inconsistency: InspectedStore.replaceOnLane is abstract")
  }

  /// Replaces the store's state through its lane, as lane work queued after what is queued
  /// already (held by the lane's locks like an action), and resumes once it ran: its observers
  /// are notified and the inspector sees it as a replacement. Never blocks a thread. Returns
  /// `false`, changing nothing, when `state` is not of the store's state type or the store is
  /// gone.
  package func replaceState(with state: any Sendable) async -> Bool {
    preconditionFailure("internal inconsistency: InspectedStore.replaceState is abstract")
  }
}

/// ``InspectedStore`` for a store of `State`.
final class TypedInspectedStore<State: Sendable>: InspectedStore, @unchecked Sendable {
  // @unchecked Sendable: immutable.
  let initial: State
  let table: HandlerTable<State>

  init(core: StoreCore<State>) {
    initial = core.initialState
    table = core.table
    super.init(id: ObjectIdentifier(core), name: "\(State.self)", lane: core.lane)
  }

  /// The store's core while it is on the lane and this is its inspection (an address can be
  /// reused by a store made after this one went).
  private var core: StoreCore<State>? {
    lane.inspectedCore(for: self) as? StoreCore<State>
  }

  override func currentState() -> (any Sendable)? { core?.state }

  override var initialState: any Sendable { initial }

  override func reduce(_ state: any Sendable, _ action: any Action) -> (any Sendable)? {
    guard var working = state as? State,
      let slot = table.resolvedSlot(for: ObjectIdentifier(type(of: action)))
    else { return nil }
    table.run(slot: slot, state: &working, action: action)
    return working
  }

  override func observersOnLane() -> [InspectedObserver] {
    core?.inspectedObservers() ?? []
  }

  override func replaceOnLane(with state: any Sendable) -> Bool {
    guard let new = state as? State, let core else { return false }
    core.replaceState(with: new)
    return true
  }

  override func replaceState(with state: any Sendable) async -> Bool {
    guard let new = state as? State, let core else { return false }
    await core.lane.performAsync(.change) { core.replaceState(with: new) }
    return true
  }
}
