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
/// called then. A reaction is valid only during the call. Properties whose name starts with
/// `_` never report changes.
public final class Reaction<State: Sendable> {
  private let reactor: Reactor<State>
  private let state: UnsafePointer<State>?
  private let isDiscovery: Bool
  /// The lock of the exclusive action that caused this change, if any: keep it and release it
  /// when the work the reaction starts is done.
  public let lock: Lock?

  init(reactor: Reactor<State>, state: UnsafePointer<State>?, lock: Lock?, isDiscovery: Bool) {
    self.reactor = reactor
    self.state = state
    self.lock = lock
    self.isDiscovery = isDiscovery
  }

  /// The store that changed.
  public var store: Store<State>? { reactor.store }

  /// The state after the change.
  public var newState: State? { state?.pointee }

  /// Calls `body` when the value at `path` changed in this step, with its value before and
  /// after.
  public func on<Value: Equatable & Sendable>(
    _ path: KeyPath<State, Value>, _ body: (Change<Value>) -> Void
  ) {
    guard let change = reactor.change(at: path, in: state, discovering: isDiscovery) else {
      return
    }
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
    guard
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
  /// ```swift
  /// dispatcher.react(to: [app, feed], owner: self) { owner, reaction in
  ///   reaction.at(app)?.on(\.counter) { change in owner.show(change.new) }
  /// }
  /// ```
  public func at<State>(_ store: Store<State>) -> Reaction<State>? {
    guard store === self.store else { return nil }
    return typed as? Reaction<State>
  }
}
