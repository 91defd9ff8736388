/// The semantics contract (DESIGN.md §3) for two stores on one lane, as plain Swift: what
/// ``TwinLane`` must show after each ``LaneCommand``.
///
/// - S1: one queue, FIFO by arrival; every store reduces an action in the same step.
/// - S6, S7: a store's observers are told, in registration order, of every step that changed
///   its state (the states are `Equatable`), with the state after the step; a new observer
///   first gets the current value. Observers delivered on a queue see the same values, in the
///   same order.
/// - S8: the `\.level` observer only when the level changed, with `old` the level before the
///   step (an action, a transaction, a reset or a rollback).
/// - S11: a committed transaction is one step per store; an aborted or failed one changes and
///   notifies nothing; `tx.state(of:)` reads the staged state; an action dispatched inside an
///   update reaches the updated store after the update's body.
/// - S12: while a lock is held, everything but exclusive actions queues and replays FIFO after
///   the last release; `release()` is idempotent, and so are a lock's deinit and
///   `removeAllLocks()` after it; an exclusive action runs at once and keeps its lock only when
///   it changed a store, until released — by the observers it caused, too
///   (`dispatcher.currentLock`).
///
/// Store A's marker observer dispatches ``TwinAction/followUp(toMarker:)`` from inside the
/// lane the first time it sees a marker: it queues behind everything already queued (S1, S2).
struct ReferenceLane {
  /// Lane work, queued while the lane is paused.
  private enum Item {
    /// An action; a `send` resumes with its ticket once it ran.
    case action(TwinAction, ticket: Int?)
    /// A transaction; a synchronous one queued while paused already returned `.queued`.
    case transaction(LaneCommand.Plan, reportsOutcome: Bool)
    case reset(TwinSide)
    case capture(TwinSide)
    case rollback(TwinSide)
    case commitCapture(TwinSide)
  }

  /// What the real lane must show.
  private(set) var expected = LaneSnapshot()
  private var queue: [Item] = [] {
    didSet { expected.queueDepth = queue.count }
  }
  /// Whether each lock taken so far, in order, is held.
  private var locks: [Bool] = [] {
    didSet { expected.lockCount = locks.count(where: { $0 }) }
  }
  private var saved: [TwinState?] = [nil, nil] {
    didSet { expected.captured = saved.map { $0 != nil } }
  }
  private var claimedMarkers: Set<Int> = []

  private var isPaused: Bool { locks.contains(true) }

  mutating func run(_ command: LaneCommand) {
    switch command {
    case .dispatch(let action, _), .dispatchAsync(let action):
      submit(.action(action, ticket: nil))
    case .send(let action, let ticket):
      submit(.action(action, ticket: ticket))
    case .transaction(let plan):
      if isPaused, plan.form == .sync { expected.outcomes[plan.id] = .queued }
      submit(.transaction(plan, reportsOutcome: !isPaused || plan.form == .async))
    case .pause:
      locks.append(true)
    case .release(let index), .forget(let index):
      guard !locks.isEmpty else { return }
      locks[index % locks.count] = false
      drain()
    case .removeAllLocks:
      locks = locks.map { _ in false }
      drain()
    case .exclusive(let action):
      // Runs now, even while paused; its lock stays only when a store changed, and store B's
      // lock observer did not release it.
      let before = expected.states
      reduce(action)
      let (old, new) = (
        before[TwinSide.b.rawValue].level, expected.states[TwinSide.b.rawValue].level
      )
      let handedBack = new == TwinLane.releasingLevel && old != new
      locks.append(expected.states != before && !handedBack)
      drain()
    case .reset(let side): submit(.reset(side))
    case .capture(let side): submit(.capture(side))
    case .rollback(let side): submit(.rollback(side))
    case .commitCapture(let side): submit(.commitCapture(side))
    }
  }

  private mutating func submit(_ item: Item) {
    queue.append(item)
    drain()
  }

  private mutating func drain() {
    while !isPaused, !queue.isEmpty { process(queue.removeFirst()) }
  }

  private mutating func process(_ item: Item) {
    switch item {
    case .action(let action, let ticket):
      reduce(action)
      if let ticket { expected.resumedSends.insert(ticket) }
    case .transaction(let plan, let reportsOutcome):
      let outcome = commit(plan)
      if reportsOutcome { expected.outcomes[plan.id] = outcome }
    case .reset(let side):
      replace(side, with: TwinState())
    case .capture(let side):
      saved[side.rawValue] = expected.states[side.rawValue]
    case .rollback(let side):
      // Nothing kept: the transaction aborts, and changes nothing.
      guard let state = saved[side.rawValue] else { return }
      saved[side.rawValue] = nil
      replace(side, with: state)
    case .commitCapture(let side):
      saved[side.rawValue] = nil
    }
  }

  /// One step: every store reduces the action, then each tells its observers.
  private mutating func reduce(_ action: TwinAction) {
    let before = expected.states
    for side in TwinSide.allCases { action.reduce(&expected.states[side.rawValue], on: side) }
    for side in TwinSide.allCases { notify(side, from: before[side.rawValue]) }
  }

  private mutating func commit(_ plan: LaneCommand.Plan) -> LaneSnapshot.Outcome {
    var staged = expected.states
    for edit in plan.edits {
      switch edit {
      case .update(let side, let level): staged[side.rawValue].level = level
      case .dispatch(let action):
        for side in TwinSide.allCases { action.reduce(&staged[side.rawValue], on: side) }
      case .updateDispatching(let updated, let level, let action):
        staged[updated.rawValue].level = level
        for side in TwinSide.allCases { action.reduce(&staged[side.rawValue], on: side) }
      }
    }
    expected.reads.append(LaneSnapshot.Read(transaction: plan.id, states: staged))
    switch plan.ending {
    case .abort: return .aborted
    case .throwing: return .failed(plan.id)
    case .commit:
      let before = expected.states
      expected.states = staged
      for side in TwinSide.allCases { notify(side, from: before[side.rawValue]) }
      return .committed
    }
  }

  private mutating func replace(_ side: TwinSide, with state: TwinState) {
    let before = expected.states[side.rawValue]
    expected.states[side.rawValue] = state
    notify(side, from: before)
  }

  /// The observers of `side`'s store after a step that left it in its current state.
  private mutating func notify(_ side: TwinSide, from old: TwinState) {
    let new = expected.states[side.rawValue]
    guard new != old else { return }
    expected.events[side.rawValue].append(.whole(observer: 0, new))
    if new.level != old.level {
      expected.events[side.rawValue].append(.level(old: old.level, new: new.level))
    }
    expected.events[side.rawValue].append(.whole(observer: 1, new))
    expected.queuedStates[side.rawValue].append(new)
    if new.level != old.level {
      expected.queuedLevels[side.rawValue].append(.level(old: old.level, new: new.level))
    }
    if side == .a, let marker = new.marker, claimedMarkers.insert(marker).inserted {
      queue.append(.action(TwinAction.followUp(toMarker: marker), ticket: nil))
    }
  }
}
