/// A ``LaneOperation`` with its actions numbered: what ``ReferenceLane`` and ``TwinLane`` run.
enum LaneCommand: Sendable {
  /// One change made inside a transaction.
  enum Edit: Sendable {
    /// `tx.update(store) { $0.level = level }`.
    case update(TwinSide, level: Int)
    /// `tx.dispatch(action)`.
    case dispatch(TwinAction)
    /// `tx.update(store) { tx.dispatch(action); $0.level = level }`: the store reduces the
    /// action after the update's body (so after the level is set), the other store at once.
    case updateDispatching(TwinSide, level: Int, TwinAction)
  }

  /// A transaction: its id (for its outcome and what it read), its edits and how it ends.
  struct Plan: Sendable {
    let id: Int
    let edits: [Edit]
    let ending: LaneOperation.Ending
    let form: LaneOperation.Form
  }

  case dispatch(TwinAction, LaneOperation.Route)
  case dispatchAsync(TwinAction)
  /// `await send(action)`; `ticket` names it among the sends that resumed.
  case send(TwinAction, ticket: Int)
  case transaction(Plan)
  case pause
  case release(Int)
  case forget(Int)
  case removeAllLocks
  case exclusive(TwinAction)
  case reset(TwinSide)
  case capture(TwinSide)
  case rollback(TwinSide)
  case commitCapture(TwinSide)
}
