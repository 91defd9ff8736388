/// An action passed by reference: a pointer to its value and its dynamic type.
///
/// The hot path never boxes an action into an `any Action`: typed handlers read it through the
/// pointer (their slot was chosen by its exact type); paths that keep it or need `any Action`
/// (queueing, middleware, catch-alls, effects, error reports) call ``boxed()``. The pointer is
/// valid only while the call that made the payload runs; nothing may keep it.
@usableFromInline
struct ActionPayload {
  /// Points at a value of `type` (for a class, at a reference to an instance of `type`).
  @usableFromInline let pointer: UnsafeRawPointer
  /// The action's dynamic type.
  @usableFromInline let type: any Action.Type

  @inlinable @inline(__always)
  init(pointer: UnsafeRawPointer, type: any Action.Type) {
    self.pointer = pointer
    self.type = type
  }

  /// The action's type identity, which routing and handler slots are keyed by.
  @inlinable
  var id: ObjectIdentifier { ObjectIdentifier(type) }

  /// A copy of the action as a value of `any Action`.
  @usableFromInline @inline(never)
  func boxed() -> any Action {
    func load<A: Action>(_: A.Type, from pointer: UnsafeRawPointer) -> any Action {
      pointer.assumingMemoryBound(to: A.self).pointee
    }
    let actionType: any Action.Type = type
    return load(actionType, from: pointer)
  }

  /// Calls `body` with a payload of `action`.
  @inlinable @inline(__always)
  static func with<A: Action, R>(_ action: A, _ body: (ActionPayload) -> R) -> R {
    withUnsafePointer(to: action) { pointer in
      body(ActionPayload(pointer: UnsafeRawPointer(pointer), type: Swift.type(of: action)))
    }
  }

  /// Calls `body` with a payload of a boxed action (opened once; not for the hot path).
  static func with<R>(boxed action: any Action, _ body: (ActionPayload) -> R) -> R {
    func open<A: Action>(_ opened: A) -> R { with(opened, body) }
    return open(action)
  }
}
