/// What the lane's queue holds for one item, in two words: an action from outside the lane whose
/// type is trivial and at most 8 bytes is *packed* (its bits, and ``PackedAction``'s metadata,
/// whose class methods run it); every other item is *boxed*: ``QueuedAction`` for other actions,
/// ``QueuedLaneWork`` for lane work and items dispatched from the lane (their chain).
@usableFromInline
enum QueuedWork {
  case packed(PackedActionKind.Type, UInt64)
  case boxed(any QueuedBox)

  /// Queues `action`, dispatched from outside the lane (packed or boxed, chosen at compile time).
  @inlinable
  init<A: Action>(_ action: A) {
    if _isPOD(A.self), MemoryLayout<A>.size <= 8, MemoryLayout<A>.alignment <= 8 {
      var bits: UInt64 = 0
      withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: action, as: A.self) }
      self = .packed(PackedAction<A>.self, bits)
    } else {
      self = .boxed(QueuedAction(action))
    }
  }

  /// Queues lane work, or an action with its chain.
  init(_ work: Lane.Work) {
    self = .boxed(QueuedLaneWork(work))
  }

  /// Queues the action `payload` points at (opened once: not for the hot path).
  init(_ payload: ActionPayload) {
    func make<A: Action>(_: A.Type) -> QueuedWork {
      QueuedWork(payload.pointer.assumingMemoryBound(to: A.self).pointee)
    }
    self = make(payload.type)
  }

  /// Queues a boxed action (opened once: not for the hot path).
  init(boxed action: any Action) {
    func make<A: Action>(_ action: A) -> QueuedWork { QueuedWork(action) }
    self = make(action)
  }

  /// The item as ``Lane/Work``, for the paths that need its action as an `any Action`.
  var work: Lane.Work {
    switch self {
    case .packed(let kind, let bits): Lane.Work(kind: .action(kind.action(from: bits)))
    case .boxed(let box): box.work
    }
  }

  /// Runs the item on the lane (drainer only).
  func run(on lane: Lane) {
    switch self {
    case .packed(let kind, let bits): kind.process(bits, on: lane)
    case .boxed(let box): box.run(on: lane)
    }
  }
}

/// The type of a packed action (see ``QueuedWork``); its subclass ``PackedAction`` knows it.
/// A class: as a protocol, `queue.async1m` measured 767.3 instructions per queued action, not
/// 696.2 (`callgrind-per-op.sh`, main 39b2cc5 with ``QueuedBox`` a protocol, 2026-11-28).
@usableFromInline
class PackedActionKind {
  /// Processes the action whose bits are `bits` (drainer only).
  class func process(_ bits: UInt64, on lane: Lane) {
    preconditionFailure("internal inconsistency: PackedActionKind.process is abstract")
  }

  /// The action whose bits are `bits`, as an `any Action`.
  class func action(from bits: UInt64) -> any Action {
    preconditionFailure("internal inconsistency: PackedActionKind.action is abstract")
  }
}

/// A packed action of type `A`: trivial and at most 8 bytes, so its bits are its value.
@usableFromInline
final class PackedAction<A: Action>: PackedActionKind {
  override class func process(_ bits: UInt64, on lane: Lane) {
    // The bits are the value and `A` its exact type: no generic load or dynamic type lookup.
    withUnsafePointer(to: bits) { lane.process(ActionPayload(pointer: $0, type: A.self)) }
  }

  override class func action(from bits: UInt64) -> any Action {
    withUnsafeBytes(of: bits) { $0.load(as: A.self) }
  }
}

/// A boxed queue item (see ``QueuedWork``).
@usableFromInline
protocol QueuedBox: AnyObject {
  /// The item as ``Lane/Work``.
  var work: Lane.Work { get }

  /// Runs the item on the lane (drainer only).
  func run(on lane: Lane)
}

/// An action from outside the lane that is not packed, boxed with its own type.
@usableFromInline
final class QueuedAction<A: Action>: QueuedBox {
  @usableFromInline let action: A

  @inlinable
  init(_ action: A) {
    self.action = action
  }

  @usableFromInline var work: Lane.Work { Lane.Work(kind: .action(action)) }

  @usableFromInline func run(on lane: Lane) {
    ActionPayload.with(action) { lane.process($0) }
  }
}

/// Lane work, or an action with its chain or lock.
final class QueuedLaneWork: QueuedBox {
  let content: Lane.Work

  init(_ content: Lane.Work) {
    self.content = content
  }

  var work: Lane.Work { content }

  func run(on lane: Lane) {
    lane.run(content)
  }
}
