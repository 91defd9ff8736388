import Foundation
import Sluice

/// One step of the lane as the inspector keeps it: what happened, where it came from, and what
/// it changed.
struct InspectorRecord: Sendable {
  /// What kind of step it was.
  enum Kind: String, Sendable {
    /// An action.
    case action
    /// A committed transaction.
    case transaction
    /// A store's state was replaced outside an action (a reset, an inspector's apply).
    case replacement
  }

  /// One store's change in this step.
  struct StoreChange: Sendable {
    /// The store's id in the protocol (`s1`, `s2`, …).
    var store: String
    var change: StateValueChange
  }

  let seq: UInt64
  let kind: Kind
  /// The action's type name, the transaction's label, or `replace`.
  let type: String
  let payload: StateValue
  /// The stores that handled the action (or whose state was replaced).
  let stores: [String]
  let changes: [StoreChange]
  let durationMicros: Int
  let time: Date
  let origin: DispatchOrigin?
  /// The id of the store whose effect dispatched the action, when an effect of a store did.
  let effectStore: String?

  // For replaying the step in a fork.
  /// The action, when the step was one.
  let action: (any Action)?
  /// The stores that reduced the action.
  let reducedBy: [String]
  /// The action a store reduced instead, by store, where its middleware replaced the action.
  let replacements: [String: any Action]
  /// The states after the step, for the stores a fork cannot replay it in (a transaction, a
  /// replacement).
  let statesAfter: [String: any Sendable]
}

/// What the ring no longer holds: how many records it let go, by type.
struct InspectorSummary: Sendable, Equatable {
  var dropped = 0
  var byType: [String: Int] = [:]
}
