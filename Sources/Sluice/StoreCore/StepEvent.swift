/// What a store tells its watchers: the one observer of a store's steps, on which everything
/// that only watches rides (`onAction` taps, ``Store/record(_:)``'s recorders, the inspector, the
/// persistence's dirty mark). A watcher is a ``Sink`` of one ``Kind`` of events (see
/// ``Store/watch(_:on:_:)``), told on the lane, under no lock, in registration order.
@usableFromInline
enum StepEvent<State: Sendable>: Sendable {
  /// An action — or a committed transaction, as ``TransactionCommitted`` — reached the store,
  /// before its middleware and reducer, with the state before it.
  case willStep(any Action, before: State)
  /// The store is done with an action: reduced, not handled, or dropped by its middleware.
  case stepped(StepRecord<State>)
  /// The store reduced an action or a transaction, or its state was replaced (nothing is
  /// copied or compared: the store keeps its fast path). Its watchers' bodies are called
  /// directly, on the lane, whatever their delivery (see `StoreCore.tellChanged()`).
  case changed

  /// The events a watcher receives; one of `willStep` or `stepped` makes the store see every
  /// action, on its slower path.
  @usableFromInline
  enum Kind: Sendable { case willStep, stepped, changed }
}

/// One action as a store saw it: the action, the state before and after, and whether the
/// store reduced it (rather than not handling it, or its middleware dropping it).
@usableFromInline
package struct StepRecord<State: Sendable>: Sendable {
  package let action: any Action
  package let before: State
  package let after: State
  package let reduced: Bool
  /// Whether the store has a handler for the action (typed or catch-all).
  package let handled: Bool
  /// Whether the store does not handle the action and another store on the lane does.
  package let handledElsewhere: Bool
  /// The action the store reduced instead, when its middleware replaced `action`.
  package var replacement: (any Action)? = nil
}
