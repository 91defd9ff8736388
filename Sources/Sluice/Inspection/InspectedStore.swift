/// A store on an inspected lane, seen without its state type: its name, its state, and its
/// reducer as a pure function, so that an inspector can replay actions in a fork without
/// touching the store.
///
/// It holds the store's lane and identity, not the store: a store that goes away makes
/// ``currentState()`` return `nil`, and `Dispatcher.replaceInspectedStates(_:)` leave it out.
package protocol InspectedStore: AnyObject, Sendable {
  /// The identity of the store's core while it lives (compare inspected stores by the identity
  /// of this object instead: a core's address can be reused once it is gone).
  var id: ObjectIdentifier { get }
  /// The name of its state type (`TodoState`).
  var name: String { get }
  /// The store's state now; `nil` when the store is gone.
  func currentState() -> (any Sendable)?
  /// The state the store started with.
  var initialState: any Sendable { get }
  /// The state `action` leaves `state` in, through the store's reducer alone (no middleware,
  /// observer or effect); `nil` when the store has no handler for it or `state` is not of the
  /// store's state type.
  func reduce(_ state: any Sendable, _ action: any Action) -> (any Sendable)?
  /// The store's observers, read on its lane (after what is queued there); empty when the
  /// store is gone.
  func observers() async -> [InspectedObserver]
}

extension Dispatcher {
  /// Replaces the states of several stores of one lane in one piece of lane work, as lane work
  /// queued after what is queued already (held by the lane's locks like an action), so no
  /// action runs between two of the replacements; their observers are notified and an
  /// inspector sees a replacement. Never blocks a thread. Returns the stores replaced (a store
  /// that is gone, a store of another lane, or a state of another type, is left out).
  ///
  /// - Throws: ``SharedLaneError/Kind/localOnly(_:)`` on a shared lane, where states change
  ///   through the log only (the lane reports it on its errors channel too); nothing changes.
  package static func replaceInspectedStates(
    _ replacements: [(store: any InspectedStore, state: any Sendable)]
  ) async throws(SharedLaneError) -> [any InspectedStore] {
    let typed = replacements.compactMap { replacement in
      (replacement.store as? any ReplaceableOnLane).map { ($0, replacement.state) }
    }
    guard let lane = typed.first?.0.lane else { return [] }
    if let refused = lane.refuseOnSharedLane("state replacement") { throw refused }
    return await lane.performAsync(.change) {
      typed.filter { store, state in store.lane === lane && store.replaceOnLane(with: state) }
        .map { $0.0 as any InspectedStore }
    } ?? []
  }
}

/// An inspected store whose state can be replaced by lane work already running on its lane.
protocol ReplaceableOnLane: InspectedStore {
  /// The store's lane.
  var lane: Lane { get }
  /// Replaces the store's state now (lane only); `false` when the state is not of the store's
  /// type or the store is gone.
  func replaceOnLane(with state: any Sendable) -> Bool
}

/// ``InspectedStore`` for a store of `State`.
final class TypedInspectedStore<State: Sendable>: ReplaceableOnLane, @unchecked Sendable {
  // @unchecked Sendable: immutable; the lane is Sendable.
  let id: ObjectIdentifier
  let name: String
  let lane: Lane
  let initial: State
  let table: HandlerTable<State>

  init(core: StoreCore<State>) {
    id = ObjectIdentifier(core)
    name = "\(State.self)"
    lane = core.lane
    initial = core.initialState
    table = core.table
  }

  /// The store's core while it is on the lane and this is its inspection (an address can be
  /// reused by a store made after this one went).
  private var core: StoreCore<State>? {
    lane.inspectedCore(for: self) as? StoreCore<State>
  }

  func currentState() -> (any Sendable)? { core?.state }

  var initialState: any Sendable { initial }

  func reduce(_ state: any Sendable, _ action: any Action) -> (any Sendable)? {
    guard var working = state as? State,
      let slot = table.resolvedSlot(for: ObjectIdentifier(type(of: action)))
    else { return nil }
    table.run(slot: slot, state: &working, action: action)
    return working
  }

  func observers() async -> [InspectedObserver] {
    await lane.performAsync(.query) { [self] in core?.inspectedObservers() ?? [] } ?? []
  }

  func replaceOnLane(with state: any Sendable) -> Bool {
    guard let new = state as? State, let core else { return false }
    core.replaceState(with: new)
    return true
  }
}
