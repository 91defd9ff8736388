import Foundation
import Sluice

/// One step of the lane as the inspector keeps it: what happened, where it came from, and the
/// states of the stores it touched, before and after.
///
/// The lane only keeps values here (the action, the states, retained: copy-on-write makes
/// that cheap); nothing is encoded or compared on the lane. What the page reads (the payload,
/// the changes) is worked out from them when a reader asks (see ``RecordDescriber``).
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

  /// One store's part in the step, in the order the lane reported them.
  struct Entry: Sendable {
    /// The store's number (its protocol id is `s` and the number).
    let store: Int
    /// Its state before and after this part of the step.
    let before: any Sendable
    var after: any Sendable
    /// Whether its reducer reduced the action.
    let reduced: Bool
    /// Whether the state was set rather than reduced (a transaction, a replacement): a fork
    /// that replays the step sets `after`.
    let setsState: Bool
    /// The action the store reduced instead, where its middleware replaced the action.
    let replacement: (any Action)?

    /// Whether the part changed (or may have changed) the store's state.
    var changes: Bool { reduced || setsState }
  }

  let seq: UInt64
  let kind: Kind
  /// The action's type name, the transaction's label, or `replace`.
  let type: String
  let durationMicros: Int
  let time: Date
  let origin: DispatchOrigin?
  /// The number of the store whose effect dispatched the action, when an effect of a store did.
  let effectStoreNumber: Int?
  /// The action, when the step was one (or the transaction's commit).
  let action: (any Action)?
  /// The first store's part, kept inline (most steps touch one store), then the others.
  var first: Entry?
  var more: [Entry]

  /// Every store's part, in order.
  var entries: [Entry] {
    guard let first else { return more }
    return [first] + more
  }

  /// The stores that handled the action (or whose state was replaced), by protocol id.
  var stores: [String] {
    var ids: [String] = []
    for entry in entries {
      let id = InspectorStoreInfo.protocolID(entry.store)
      if !ids.contains(id) { ids.append(id) }
    }
    return ids
  }

  /// The id of the store whose effect dispatched the action, when an effect of a store did.
  var effectStore: String? { effectStoreNumber.map(InspectorStoreInfo.protocolID) }

  /// Whether store `number` reduced the action.
  func reduced(by number: Int) -> Bool {
    entries.contains { $0.store == number && $0.reduced }
  }

  /// Whether the step set store `number`'s state (a transaction, a replacement).
  func setsState(of number: Int) -> Bool {
    entries.contains { $0.store == number && $0.setsState }
  }

  /// The action store `number` reduced instead, where its middleware replaced the action.
  func replacement(for number: Int) -> (any Action)? {
    entries.first { $0.store == number && $0.replacement != nil }?.replacement
  }
}

/// What the ring no longer holds: how many records it let go, by type.
struct InspectorSummary: Sendable, Equatable {
  var dropped = 0
  var byType: [String: Int] = [:]
}
