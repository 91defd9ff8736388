/// One registered observer of a store whose state is `State`.
///
/// Subclasses know where their value comes from: the whole state, or the change their key-path
/// group computed for this round, and give the function that calls them. Only the lane touches
/// a registry and its observers' order.
///
/// A class, not a protocol: the lane reads `order`, `gate` and `stateSink` of every observer on
/// every step as stored fields, and calls ``fire(_:)`` through a function made in code specialized
/// for the state and value types. Instructions per op, class / protocol (`callgrind-per-op.sh`,
/// main 39b2cc5, 2026-11-28): `dispatch.observers1` 406 / 518, `dispatch.observers100`
/// 4,900 / 15,323, `select.observers100.one_changed` 5,243 / 5,550.
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
  /// Calls the observer (given as the first argument) for the state at the pointer. Made by
  /// the subclass; a key-path observer's comes from its group's inlinable initializer, so it is
  /// specialized for the concrete state and value types, and captures nothing.
  @usableFromInline let fireBody: (AnyObserver<State>, UnsafePointer<State>) -> Void

  init(
    order: Int, gate: Gate, ownerGone: (@Sendable () -> Bool)?,
    stateSink: Unmanaged<Sink<State>>? = nil,
    fire: @escaping (AnyObserver<State>, UnsafePointer<State>) -> Void
  ) {
    self.order = order
    self.gate = gate
    self.ownerGone = ownerGone
    self.stateSink = stateSink
    fireBody = fire
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
  @inlinable final func fire(_ state: UnsafePointer<State>) { fireBody(self, state) }
}

/// An observer of the whole state.
final class StateObserver<State: Sendable>: AnyObserver<State>, @unchecked Sendable {
  let sink: Sink<State>

  init(order: Int, sink: Sink<State>, ownerGone: (@Sendable () -> Bool)?) {
    self.sink = sink
    super.init(
      order: order, gate: sink.gate, ownerGone: ownerGone,
      stateSink: Unmanaged.passUnretained(sink)
    ) { observer, state in
      unsafeDowncast(observer, to: StateObserver<State>.self).sink.send(state.pointee)
    }
  }
}

/// Holds the change a key-path group computed for the current round; shared by the group and its
/// observers, so neither holds the other.
@usableFromInline
final class ChangeCell<Value>: @unchecked Sendable {
  // @unchecked Sendable: written and read on the lane only.
  @usableFromInline @exclusivity(unchecked) var change: Change<Value>?
  @usableFromInline init() {}
}

/// An observer of one key path: called with the change its group computed for this round.
@usableFromInline
final class PathObserver<State: Sendable, Value: Equatable & Sendable>: AnyObserver<State>,
  @unchecked Sendable
{
  @usableFromInline let cell: ChangeCell<Value>
  @usableFromInline let sink: Sink<Change<Value>>

  /// An observer of `group`'s value, called through the group's ``ValueGroup/fireMember``.
  init(order: Int, group: ValueGroup<State, Value>, sink: Sink<Change<Value>>) {
    cell = group.cell
    self.sink = sink
    super.init(order: order, gate: sink.gate, ownerGone: nil, fire: group.fireMember)
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
  /// For a path of stored properties to an integer or a `Bool`, whose equality is that of its
  /// bytes: where the value lives in the state. The registry then compares those bytes itself,
  /// without calling `check`, until they differ (see ``WordSlot``).
  @usableFromInline let word: (offset: Int, width: Int)?
  /// For a word group: the bytes of the value after the last check, zero-extended; kept by
  /// the registry's slot while the group is registered. Lane only: exclusivity is not checked
  /// at run time (the check cost about 60 instructions per changed word).
  @usableFromInline @exclusivity(unchecked) var wordLast: UInt64

  @usableFromInline
  init(
    word: (offset: Int, width: Int)? = nil, wordLast: UInt64 = 0,
    check: @escaping (AnyPathGroup<State>, UnsafePointer<State>) -> Bool
  ) {
    self.word = word
    self.wordLast = wordLast
    self.check = check
  }
}

/// A group whose value is an integer or a `Bool` at a fixed place in the state: the lane
/// compares its bytes with those it saw last, a load and a compare per action, and calls the
/// group's `check` only when they differ.
@usableFromInline
struct WordSlot<State: Sendable> {
  @usableFromInline let offset: Int
  @usableFromInline let width: Int
  /// The bytes of the value after the last check, zero-extended.
  @usableFromInline var last: UInt64
  @usableFromInline let group: Unmanaged<AnyPathGroup<State>>

  @usableFromInline
  init(offset: Int, width: Int, last: UInt64, group: Unmanaged<AnyPathGroup<State>>) {
    self.offset = offset
    self.width = width
    self.last = last
    self.group = group
  }

  /// The bytes of the value in `state`, zero-extended to 64 bits.
  @inlinable @inline(__always)
  static func read(_ state: UnsafeRawPointer, offset: Int, width: Int) -> UInt64 {
    switch width {
    case 1: UInt64(state.load(fromByteOffset: offset, as: UInt8.self))
    case 2: UInt64(state.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    case 4: UInt64(state.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    default: state.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }
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
  /// Calls a member (a ``PathObserver`` of this group) with the change of this round, if any.
  /// Made here, in inlinable code, so it is specialized for the concrete state and value types
  /// (no generic metadata is looked up per call), and captures nothing.
  @usableFromInline final let fireMember: (AnyObserver<State>, UnsafePointer<State>) -> Void

  @inlinable
  init(
    current: Value, word: (offset: Int, width: Int)? = nil,
    check: @escaping (AnyPathGroup<State>, UnsafePointer<State>) -> Bool
  ) {
    last = current
    fireMember = { member, _ in
      let observer = unsafeDowncast(member, to: PathObserver<State, Value>.self)
      guard let change = observer.cell.change else { return }
      observer.sink.send(change)
    }
    var bytes: UInt64 = 0
    if word != nil, MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size {
      withUnsafeBytes(of: current) { value in
        withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: value) }
      }
    }
    super.init(word: word, wordLast: bytes, check: check)
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
    let offset = MemoryLayout<State>.offset(of: path)
    self.offset = offset
    super.init(current: current, word: offset.flatMap { Self.word(at: $0) }) { group, state in
      unsafeDowncast(group, to: PathGroup<State, Value>.self).compare(with: state)
    }
  }

  /// The place of a value at `offset` whose equality is that of its bytes: the standard
  /// library's integers and `Bool`; `nil` for any other type.
  @inlinable
  static func word(at offset: Int) -> (offset: Int, width: Int)? {
    switch Value.self {
    case is Int.Type, is UInt.Type, is Int64.Type, is UInt64.Type, is Int32.Type, is UInt32.Type,
      is Int16.Type, is UInt16.Type, is Int8.Type, is UInt8.Type, is Bool.Type:
      (offset, MemoryLayout<Value>.size)
    default: nil
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
      // The state is lent to the selector through an exclusive access, in place: passing
      // `state.pointee` copied it, a retain and a release of its storage per selector.
      let value = Self.read(select, &UnsafeMutablePointer(mutating: state).pointee)
      return unsafeDowncast(group, to: SelectGroup<State, Value>.self).update(to: value)
    }
  }

  @inlinable @inline(__always)
  static func read(_ select: (State) -> Value, _ state: inout State) -> Value { select(state) }
}

/// A store's observers, grouped by kind. Touched only on the lane.
@usableFromInline
struct ObserverRegistry<State: Sendable> {
  @usableFromInline var wholes: [AnyObserver<State>] = [] {
    didSet { wholesInPlace = wholes.withUnsafeBufferPointer { $0 } }
  }
  /// The elements of ``wholes``, read on every step without retaining the array (40
  /// instructions); reset whenever `wholes` changes, which `StoreCore.fire` prevents meanwhile.
  @usableFromInline var wholesInPlace = UnsafeBufferPointer<AnyObserver<State>>(
    start: nil, count: 0)
  /// Reactors: called on every committed step; they check their own queries.
  @usableFromInline var reactors: [AnyObserver<State>] = []
  /// The groups, owned here; ``groupRefs`` names the same groups without reference counting,
  /// for the per-action loop.
  @usableFromInline var groups: [AnyPathGroup<State>] = [] {
    didSet { rebuildRefs() }
  }
  /// The groups whose value is not a word, unretained: `check` compares them.
  @usableFromInline var groupRefs: [Unmanaged<AnyPathGroup<State>>] = []
  /// The groups whose value is a 64-bit word: the lane compares their bytes.
  @usableFromInline var wordSlots: [WordSlot<State>] = []
  /// The groups whose value is a narrower word (a `Bool`, an `Int32`…).
  @usableFromInline var narrowSlots: [WordSlot<State>] = []
  var groupByPath: [AnyKeyPath: AnyPathGroup<State>] = [:]
  /// Whether a key path read through the key-path runtime was reported (once per store).
  var reportedSlowKeyPath = false
  @usableFromInline var nextOrder = 0

  @usableFromInline init() {}

  @inlinable var isEmpty: Bool { wholes.isEmpty && groups.isEmpty && reactors.isEmpty }

  /// The number of live observers registered (a sweep asked for during a step runs after it).
  var count: Int {
    wholes.count { !$0.isDead } + reactors.count { !$0.isDead }
      + groups.reduce(0) { $0 + $1.members.count { !$0.isDead } }
  }

  /// The rank the next observer will get.
  @inlinable var nextOrderPeek: Int { nextOrder }

  mutating func takeOrder() -> Int {
    defer { nextOrder += 1 }
    return nextOrder
  }

  /// Splits the groups into ``groupRefs``, ``wordSlots`` and ``narrowSlots``; a slot starts from the bytes its
  /// group saw last.
  private mutating func rebuildRefs() {
    var refs: [Unmanaged<AnyPathGroup<State>>] = []
    var words: [WordSlot<State>] = []
    var narrow: [WordSlot<State>] = []
    for group in groups {
      let ref = Unmanaged.passUnretained(group)
      guard let word = group.word else {
        refs.append(ref)
        continue
      }
      let slot = WordSlot(offset: word.offset, width: word.width, last: group.wordLast, group: ref)
      if word.width == MemoryLayout<UInt64>.size {
        words.append(slot)
      } else {
        narrow.append(slot)
      }
    }
    groupRefs = refs
    wordSlots = words
    narrowSlots = narrow
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
