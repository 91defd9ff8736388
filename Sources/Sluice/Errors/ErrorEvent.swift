import Foundation

/// An error that reached a store or dispatcher: thrown by an effect or a load, or carried
/// by an action (see ``ErrorCarrying``).
///
/// Errors are reported, never re-dispatched: an effect that keeps failing cannot start a loop.
public struct ErrorEvent: Sendable, CustomStringConvertible {
  /// Where an error came from.
  public enum Source: Sendable, Hashable, CustomStringConvertible {
    /// An effect that ran for an action of this type threw it, or reported it.
    case effect(actionType: String)
    /// Work the store ran outside an effect threw it; the string names the work.
    case command(String)
    /// An action of this type carried it (``ErrorCarrying``).
    case action(String)
    /// Restoring or saving the state under this key failed (``PersistenceError``).
    case persistence(String)
    /// A shared lane could not append to, or apply, its log (``SharedLaneError``, or the log
    /// engine's error); the string names the node.
    case sharedLane(String)

    public var description: String {
      switch self {
      case .effect(let type): "effect on \(type)"
      case .command(let type): "command \(type)"
      case .action(let type): "action \(type)"
      case .persistence(let key): "persistence of \(key)"
      case .sharedLane(let node): "shared lane of node \(node)"
      }
    }
  }

  /// The error.
  public let error: any Error
  /// The action that started the effect or carried the error, if any.
  public let action: (any Action)?
  /// Where the error came from.
  public let source: Source
  /// When it was reported.
  public let date: Date

  /// Creates an event; Sluice makes the events its channels carry.
  package init(error: any Error, action: (any Action)?, source: Source, date: Date = Date()) {
    self.error = error
    self.action = action
    self.source = source
    self.date = date
  }

  public var description: String { "\(source): \(error)" }
}

/// An action that may carry an error (JBFlux's `JBAction.error`): one action type for success
/// and failure instead of `…Success` / `…Failure` pairs.
///
/// When such an action is dispatched with a non-`nil` error, it is reduced as usual; then, once
/// the reducers and the synchronous observers of that step ran, the error is reported on the
/// error channel of every store that handles the action and of the dispatcher:
///
/// ```swift
/// struct CurrentUserRefreshed: ErrorCarrying {
///   var user: User?
///   var error: (any Error)?
/// }
/// let reducer = Reducer<Session>().on(CurrentUserRefreshed.self) { state, action in
///   state.user = action.error == nil ? action.user : nil
/// }
/// ```
public protocol ErrorCarrying: Action {
  /// The error, when the action reports a failure.
  var error: (any Error)? { get }
}
