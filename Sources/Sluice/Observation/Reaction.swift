import Synchronization

/// One committed change of a store, as a reactor sees it (Flask's `FlaskReaction`).
///
/// A reactor is called once per committed change of its store (an action, a transaction, a
/// reset). Inside, ``on(_:_:)-swift.method`` asks about one value at a time; each query costs
/// the same whatever the size of the state:
///
/// ```swift
/// let subscription = store.react { reaction in
///   reaction.on(\.counter) { change in print("counter", change.old, "→", change.new) }
///   reaction.on("info.nest.foo") { change in print(change.new) }   // Codable states
/// }
/// ```
///
/// The reactor is called once when it is attached, to learn its queries: `on` bodies are not
/// called then. Properties whose name starts with `_` never report changes.
///
/// A reaction is valid only during the call it was made for. Kept past it, it answers nothing:
/// ``on(_:_:)-swift.method`` and ``on(_:file:line:_:)`` do not call their body, ``newState`` is
/// `nil`, and each use is reported as ``ReportedIssue/Kind/reactionUsedAfterItsCall``. Copy
/// what you need (``newState``, a change) out of the call instead.
public final class Reaction<State: Sendable> {
  private let reactor: Reactor<State>
  private let state: UnsafePointer<State>?
  private let isDiscovery: Bool
  /// Cleared by the reactor when the call this reaction was made for returns: `state` points
  /// into the store, and the reactor's query state moves on with the next step.
  private let isValid = Atomic<Bool>(true)
  /// The lock of the exclusive action that caused this change, if any: keep it and release it
  /// when the work the reaction starts is done.
  public let lock: Lock?

  init(reactor: Reactor<State>, state: UnsafePointer<State>?, lock: Lock?, isDiscovery: Bool) {
    self.reactor = reactor
    self.state = state
    self.lock = lock
    self.isDiscovery = isDiscovery
  }

  /// Ends the reaction's validity; called by the reactor when the handler returns.
  func invalidate() {
    isValid.store(false, ordering: .releasing)
  }

  /// Whether the reaction is still in its call; reports the misuse when it is not.
  private func checkValid(
    _ use: @autoclosure () -> String, file: StaticString, line: UInt
  ) -> Bool {
    if isValid.load(ordering: .acquiring) { return true }
    reactor.reportUseAfterCall(use(), file: file, line: line)
    return false
  }

  /// The store that changed.
  public var store: Store<State>? { reactor.currentStore }

  /// The state after the change; `nil` when the reaction is used after its call.
  public var newState: State? {
    guard checkValid("newState", file: #fileID, line: #line) else { return nil }
    return state?.pointee
  }

  /// Calls `body` when the value at `path` changed in this step, with its value before and
  /// after.
  public func on<Value: Equatable & Sendable>(
    _ path: KeyPath<State, Value>, _ body: (Change<Value>) -> Void
  ) {
    guard checkValid("on(\(path))", file: #fileID, line: #line),
      let change = reactor.change(at: path, in: state, discovering: isDiscovery)
    else { return }
    body(change)
  }

  /// Calls `body` when the value at a dotted path (`"info.nest.foo"`, `"items.2.name"`) of a
  /// `Codable` state changed in this step.
  ///
  /// Nested structures, optionals (a `nil` reads as ``StateValue/null``; there is no `some`
  /// segment), arrays by index and dictionaries with `String` keys are reachable. A path may
  /// name something that does not exist yet — a dictionary key, an array index past the end, a
  /// field under a `nil` optional: it reads as `null` until it appears. A path that can never
  /// name anything (a missing property of a struct, a step into a number or a string) is
  /// reported once as ``ReportedIssue/Kind/unknownPath`` and ignored, never a crash.
  public func on(
    _ path: String, file: StaticString = #fileID, line: UInt = #line,
    _ body: (DynamicChange) -> Void
  ) {
    guard checkValid("on(\"\(path)\")", file: file, line: line),
      let change = reactor.dynamicChange(
        at: path, discovering: isDiscovery, file: file, line: line)
    else { return }
    body(change)
  }
}

/// A reaction over several stores of one dispatcher (Flask's reactor mixing substances).
public final class MultiReaction {
  /// The store that changed.
  public let store: AnyStore
  /// The lock of the exclusive action that caused this change, if any.
  public let lock: Lock?
  private let typed: AnyObject

  init<State>(_ reaction: Reaction<State>, store: AnyStore) {
    self.store = store
    lock = reaction.lock
    typed = reaction
  }

  /// The reaction of `store`, when it is the store that changed; `nil` otherwise.
  ///
  /// Like a ``Reaction``, a multi-reaction is valid only during its call: the reaction this
  /// returns afterwards answers nothing, and its use is reported.
  ///
  /// ```swift
  /// dispatcher.react(to: [app, feed], owner: self) { owner, reaction in
  ///   reaction.at(app)?.on(\.counter) { change in owner.show(change.new) }
  /// }
  /// ```
  public func at<State>(_ store: Store<State>) -> Reaction<State>? {
    guard store.anyCore === self.store.anyCore else { return nil }
    return typed as? Reaction<State>
  }
}
