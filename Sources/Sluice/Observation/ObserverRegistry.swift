/// One registered observer of a store whose state is `State`.
///
/// Subclasses know where their value comes from: the whole state, or the change their key-path
/// group computed for this round. Only the lane touches a registry and its observers' order.
@usableFromInline
class AnyObserver<State: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: immutable after init; `fire` runs on the lane only.
  /// The registration rank: observers run in this order.
  @usableFromInline let order: Int
  @usableFromInline let gate: Gate
  /// For observers bound to an owner: whether the owner is gone (the observer is then swept).
  @usableFromInline let ownerGone: (@Sendable () -> Bool)?
  /// For a whole-state observer, its sink (owned by the subclass): the lane calls it from code
  /// specialized for the state type, without a virtual call or reference counting.
  @usableFromInline let stateSink: Unmanaged<Sink<State>>?

  init(
    order: Int, gate: Gate, ownerGone: (@Sendable () -> Bool)?,
    stateSink: Unmanaged<Sink<State>>? = nil
  ) {
    self.order = order
    self.gate = gate
    self.ownerGone = ownerGone
    self.stateSink = stateSink
  }

  /// Whether the observer will never be called again: cancelled, or its owner is gone.
  @inlinable final var isDead: Bool {
    if gate.isCancelled { return true }
    if ownerGone == nil { return false }
    return isOwnerGone()
  }

  /// Whether the owner of an owner-bound observer is gone; cancels the observer when it is.
  @usableFromInline @inline(never)
  func isOwnerGone() -> Bool {
    guard let ownerGone, ownerGone() else { return false }
    gate.cancel()
    return true
  }

  /// Calls the observer for the state at `state` (the lane's own copy, read in place).
  @usableFromInline
  func fire(_ state: UnsafePointer<State>) {
    preconditionFailure("internal inconsistency: AnyObserver.fire is abstract")
  }
}

/// An observer of the whole state.
final class StateObserver<State: Sendable>: AnyObserver<State>, @unchecked Sendable {
  let sink: Sink<State>

  init(order: Int, sink: Sink<State>, ownerGone: (@Sendable () -> Bool)?) {
    self.sink = sink
    super.init(
      order: order, gate: sink.gate, ownerGone: ownerGone,
      stateSink: Unmanaged.passUnretained(sink))
  }

  override func fire(_ state: UnsafePointer<State>) { sink.send(state.pointee) }
}

/// Holds the change a key-path group computed for the current round; shared by the group and its
/// observers, so neither holds the other.
@usableFromInline
final class ChangeCell<Value>: @unchecked Sendable {
  // @unchecked Sendable: written and read on the lane only.
  @usableFromInline @exclusivity(unchecked) var change: Change<Value>?
  @usableFromInline init() {}
}

/// An observer of one key path.
final class PathObserver<State: Sendable, Value: Sendable>: AnyObserver<State>, @unchecked Sendable
{
  let cell: ChangeCell<Value>
  let sink: Sink<Change<Value>>

  init(
    order: Int, cell: ChangeCell<Value>, sink: Sink<Change<Value>>,
    ownerGone: (@Sendable () -> Bool)?
  ) {
    self.cell = cell
    self.sink = sink
    super.init(order: order, gate: sink.gate, ownerGone: ownerGone)
  }

  override func fire(_ state: UnsafePointer<State>) {
    guard let change = cell.change else { return }
    sink.send(change)
  }
}

/// The observers of one key path. The group reads the path once per round, whatever the number
/// of its observers, and compares it with the value it saw last.
@usableFromInline
class AnyPathGroup<State: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: lane-only mutable state.
  @usableFromInline @exclusivity(unchecked) var members: [AnyObserver<State>] = []
  /// Reads the path in the state at the pointer; returns whether it changed since the last
  /// check. Made by `PathGroup`'s inlinable initializer, so it is specialized for the concrete
  /// state and value types; it captures nothing (the group is an argument).
  @usableFromInline let check: (AnyPathGroup<State>, UnsafePointer<State>) -> Bool

  @usableFromInline
  init(check: @escaping (AnyPathGroup<State>, UnsafePointer<State>) -> Bool) {
    self.check = check
  }
}

/// A group that compares one value per round with the value it saw last; the subclass says
/// how the value is read.
@usableFromInline
class ValueGroup<State: Sendable, Value: Equatable & Sendable>: AnyPathGroup<State>,
  @unchecked Sendable
{
  @usableFromInline final let cell = ChangeCell<Value>()
  /// The value after the last check: the value before the current action.
  @usableFromInline @exclusivity(unchecked) final var last: Value

  @inlinable
  init(current: Value, check: @escaping (AnyPathGroup<State>, UnsafePointer<State>) -> Bool) {
    last = current
    super.init(check: check)
  }

  /// Records `value` as the value of this round; returns whether it changed.
  @inlinable
  final func update(to value: Value) -> Bool {
    if value == last { return false }
    cell.change = Change(old: last, new: value)
    last = value
    return true
  }
}

/// The observers of one key path.
@usableFromInline
final class PathGroup<State: Sendable, Value: Equatable & Sendable>: ValueGroup<State, Value>,
  @unchecked Sendable
{
  @usableFromInline let path: KeyPath<State, Value>
  /// Where the value lives inside the state, when the path is made of stored properties only:
  /// reading it is then one load instead of a walk through the key-path runtime.
  @usableFromInline let offset: Int?

  @inlinable
  init(path: KeyPath<State, Value>, current: Value) {
    self.path = path
    offset = MemoryLayout<State>.offset(of: path)
    super.init(current: current) { group, state in
      unsafeDowncast(group, to: PathGroup<State, Value>.self).compare(with: state)
    }
  }

  @inlinable
  func compare(with state: UnsafePointer<State>) -> Bool {
    if let offset {
      return update(to: UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self))
    }
    return update(to: state.pointee[keyPath: path])
  }
}

/// The one observer of a ``StateSelector``: its check calls the selector directly, compiled
/// with the caller's code, without the key-path runtime.
@usableFromInline
final class SelectGroup<State: Sendable, Value: Equatable & Sendable>: ValueGroup<State, Value>,
  @unchecked Sendable
{
  @inlinable
  init(select: @escaping @Sendable (State) -> Value, current: Value) {
    super.init(current: current) { group, state in
      unsafeDowncast(group, to: SelectGroup<State, Value>.self).update(to: select(state.pointee))
    }
  }
}

/// A store's observers, grouped by kind. Touched only on the lane.
@usableFromInline
struct ObserverRegistry<State: Sendable> {
  @usableFromInline var wholes: [AnyObserver<State>] = []
  /// Reactors: called on every committed step; they check their own queries.
  @usableFromInline var reactors: [AnyObserver<State>] = []
  /// The groups, owned here; ``groupRefs`` names the same groups without reference counting,
  /// for the per-action loop.
  @usableFromInline var groups: [AnyPathGroup<State>] = [] {
    didSet { groupRefs = groups.map { Unmanaged.passUnretained($0) } }
  }
  @usableFromInline var groupRefs: [Unmanaged<AnyPathGroup<State>>] = []
  var groupByPath: [AnyKeyPath: AnyPathGroup<State>] = [:]
  @usableFromInline var nextOrder = 0

  @usableFromInline init() {}

  @inlinable var isEmpty: Bool { wholes.isEmpty && groups.isEmpty && reactors.isEmpty }

  /// The number of observers registered (sweep first to leave out the dead ones).
  var count: Int {
    wholes.count + reactors.count + groups.reduce(0) { $0 + $1.members.count }
  }

  /// The rank the next observer will get.
  @inlinable var nextOrderPeek: Int { nextOrder }

  mutating func takeOrder() -> Int {
    defer { nextOrder += 1 }
    return nextOrder
  }

  /// Removes cancelled observers and those whose owner is gone, and groups left without
  /// observers.
  mutating func sweep() {
    wholes.removeAll { $0.isDead }
    reactors.removeAll { $0.isDead }
    for group in groups { group.members.removeAll { $0.isDead } }
    if groups.contains(where: { $0.members.isEmpty }) {
      groups.removeAll { $0.members.isEmpty }
      groupByPath = groupByPath.filter { !$0.value.members.isEmpty }
    }
  }
}
