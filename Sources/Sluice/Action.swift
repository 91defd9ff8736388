/// Something that happened, dispatched to a ``Dispatcher`` and reduced by the stores on it.
///
/// An action is a plain `Sendable` value — a struct or an enum — whose name says what happened
/// and whose fields carry the details:
///
/// ```swift
/// struct StepChangeRequested: Action { let step: Int }
/// enum Counter: Action { case increment, decrement }
/// ```
///
/// Stores route actions by their *type identity* (never by a type-name string), so two action
/// types with the same name in different modules never meet. A synchronous dispatch hands the
/// action to its handlers by reference, without allocating, whatever its size; a queued action
/// (or one that reaches middleware, a catch-all handler or an effect) is boxed into an
/// `any Action`, which allocates only when it is larger than three words.
public protocol Action: Sendable {}

/// How a dispatch call hands its action to the lane.
public enum DispatchMode: Sendable, Hashable {
  /// Returns after every store on the lane reduced the action and synchronous observers ran.
  ///
  /// Called from inside the lane (a reducer, middleware or synchronous observer), the action is
  /// queued and the call returns at once; it runs after the current action, before the
  /// outermost dispatch returns.
  case sync
  /// Queues the action and returns at once; the lane processes it on its own queue.
  case async
}
