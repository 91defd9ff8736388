/// One registered observer of a store whose state is `State`.
///
/// Subclasses know where their value comes from: the whole state, or the change their key-path
/// group computed for this round. Only the lane touches a registry and its observers' order.
class AnyObserver<State>: @unchecked Sendable {
  // @unchecked Sendable: immutable after init; `fire` runs on the lane only.
  /// The registration rank: observers run in this order.
  let order: Int
  let gate: Gate

  init(order: Int, gate: Gate) {
    self.order = order
    self.gate = gate
  }

  func fire(_ state: State) {
    preconditionFailure("internal inconsistency: AnyObserver.fire is abstract")
  }
}

/// An observer of the whole state.
final class StateObserver<State: Sendable>: AnyObserver<State>, @unchecked Sendable {
  let sink: Sink<State>

  init(order: Int, sink: Sink<State>) {
    self.sink = sink
    super.init(order: order, gate: sink.gate)
  }

  override func fire(_ state: State) { sink.send(state) }
}

/// Holds the change a key-path group computed for the current round; shared by the group and its
/// observers, so neither holds the other.
final class ChangeCell<Value>: @unchecked Sendable {
  // @unchecked Sendable: written and read on the lane only.
  var change: Change<Value>?
  init() {}
}

/// An observer of one key path.
final class PathObserver<State, Value: Sendable>: AnyObserver<State>, @unchecked Sendable {
  let cell: ChangeCell<Value>
  let sink: Sink<Change<Value>>

  init(order: Int, cell: ChangeCell<Value>, sink: Sink<Change<Value>>) {
    self.cell = cell
    self.sink = sink
    super.init(order: order, gate: sink.gate)
  }

  override func fire(_ state: State) {
    guard let change = cell.change else { return }
    sink.send(change)
  }
}

/// The observers of one key path. The group reads the path once per round, whatever the number
/// of its observers, and compares it with the value it saw last.
class AnyPathGroup<State>: @unchecked Sendable {
  // @unchecked Sendable: lane-only mutable state.
  var members: [AnyObserver<State>] = []

  /// Reads the path in `state`; returns whether it changed since the last check.
  func check(_ state: State) -> Bool {
    preconditionFailure("internal inconsistency: AnyPathGroup.check is abstract")
  }
}

final class PathGroup<State, Value: Equatable & Sendable>: AnyPathGroup<State>, @unchecked Sendable
{
  let path: KeyPath<State, Value>
  let cell = ChangeCell<Value>()
  /// The value after the last check: the value before the current action.
  private(set) var last: Value

  init(path: KeyPath<State, Value>, current: Value) {
    self.path = path
    last = current
  }

  override func check(_ state: State) -> Bool {
    let value = state[keyPath: path]
    if value == last { return false }
    cell.change = Change(old: last, new: value)
    last = value
    return true
  }
}

/// A store's observers, grouped by kind. Touched only on the lane.
struct ObserverRegistry<State> {
  var wholes: [AnyObserver<State>] = []
  var groups: [AnyPathGroup<State>] = []
  var groupByPath: [AnyKeyPath: AnyPathGroup<State>] = [:]
  private var nextOrder = 0

  var isEmpty: Bool { wholes.isEmpty && groups.isEmpty }

  /// The number of live observers (owner-bound observers whose owner is gone excluded once swept).
  var count: Int { wholes.count + groups.reduce(0) { $0 + $1.members.count } }

  /// The rank the next observer will get.
  var nextOrderPeek: Int { nextOrder }

  mutating func takeOrder() -> Int {
    defer { nextOrder += 1 }
    return nextOrder
  }

  /// Removes cancelled observers, and groups left without observers.
  mutating func sweep() {
    wholes.removeAll { $0.gate.isCancelled }
    for group in groups { group.members.removeAll { $0.gate.isCancelled } }
    if groups.contains(where: { $0.members.isEmpty }) {
      groups.removeAll { $0.members.isEmpty }
      groupByPath = groupByPath.filter { !$0.value.members.isEmpty }
    }
  }
}
