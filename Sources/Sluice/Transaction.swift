/// Changes to one or several stores of a lane, applied as one step: nothing interleaves, every
/// touched store notifies once (with `old` = its state before the transaction), and an abort
/// or an error leaves every store exactly as it was, with nothing notified.
///
/// You get a transaction from ``Dispatcher/transaction(_:file:line:_:)-13z3z`` (or its `async`
/// form, ``Dispatcher/transaction(_:file:line:_:)-1csu5``); it is valid only inside that
/// closure, which runs on the lane:
///
/// ```swift
/// dispatcher.transaction("login") { tx in
///   tx.update(session) { $0.user = user }
///   tx.dispatch(CartRestored(items: saved))    // reduced into the staged states
///   if tx.state(of: session).user == nil { try tx.abort() }
/// }
/// ```
///
/// The stores are changed on staged copies; readers of `store.state` on other threads keep
/// seeing the states before the transaction until it commits. Middleware and `onAction` taps
/// see a committed transaction as one ``TransactionCommitted`` action.
public final class Transaction: @unchecked Sendable {
  // @unchecked Sendable: used only on the lane, inside the transaction's closure.
  /// The transaction's name, for middleware, taps and reports.
  public let label: String
  let lane: Lane
  private var staged: [ObjectIdentifier: any StagedStore] = [:]
  private(set) var order: [any StagedStore] = []
  /// The actions reduced, whose effects start when the transaction commits.
  private(set) var dispatched: [any Action] = []

  init(label: String, lane: Lane) {
    self.label = label
    self.lane = lane
  }

  /// The number of stores the transaction changed so far.
  public var touchedStoreCount: Int { order.count }

  /// Changes a store's staged state directly (Flask's mixers, `mix…with…react`).
  ///
  /// While `body` runs, it holds the store's staged state as its `inout` parameter, so inside
  /// it, for the same store:
  /// - ``state(of:file:line:)`` is a misuse (read the parameter instead): it is reported as
  ///   ``ReportedIssue/Kind/stateReadInsideUpdate`` and returns the state from before the
  ///   transaction;
  /// - another `update` is a misuse: it is reported as ``ReportedIssue/Kind/reentrantUpdate``,
  ///   does not run, and aborts the transaction (it throws ``TransactionError/aborted``);
  /// - an action passed to ``dispatch(_:)`` is reduced into this store right after `body`
  ///   returns (other stores reduce it at once).
  ///
  /// - Throws: What `body` throws, ``TransactionError/foreignStore`` when the store is on
  ///   another dispatcher, or ``TransactionError/aborted`` for a re-entrant update; each aborts
  ///   the transaction.
  public func update<S>(
    _ store: Store<S>, file: StaticString = #fileID, line: UInt = #line,
    _ body: (inout S) throws -> Void
  ) throws {
    guard store.core.lane === lane else { throw TransactionError.foreignStore }
    let staged = stage(store.core)
    guard !staged.isUpdating else {
      lane.reporter.report(
        ReportedIssue(
          kind: .reentrantUpdate,
          message: "tx.update(Store<\(S.self)>) was called inside an update of the same store; "
            + "change the state the outer update receives instead. The transaction '\(label)' "
            + "was aborted.",
          fileID: "\(file)", line: line))
      throw TransactionError.aborted
    }
    try staged.update(body)
  }

  /// Reduces an action into the staged states of every store on the lane that handles it.
  ///
  /// Middleware and taps do not see the action itself; they see the committed transaction.
  /// Its effects start when the transaction commits.
  public func dispatch(_ action: some Action) {
    dispatched.append(action)
    for core in lane.routeCores(for: type(of: action)) {
      guard let slot = core.slot(for: ObjectIdentifier(type(of: action))) ?? core.catchAllSlot
      else { continue }
      // Into a store being updated, after its update's body returns.
      core.stage(in: self).reduceOrDefer(action, slot: slot)
    }
  }

  /// A store's state as the transaction sees it: staged when changed, current otherwise.
  ///
  /// Inside ``update(_:file:line:_:)`` of the same store, this is a misuse (the update's body
  /// has the state as its `inout` parameter): it is reported as
  /// ``ReportedIssue/Kind/stateReadInsideUpdate`` and returns the store's state from before the
  /// transaction. A store on another dispatcher is not part of the transaction: its `state` is
  /// read (thread-safe, but it may change while the transaction runs) and the misuse is
  /// reported as ``ReportedIssue/Kind/foreignStoreInTransaction``.
  public func state<S>(
    of store: Store<S>, file: StaticString = #fileID, line: UInt = #line
  ) -> S {
    guard store.core.lane === lane, lane.isCurrentThreadDraining else {
      lane.reporter.report(
        ReportedIssue(
          kind: .foreignStoreInTransaction,
          message: "the transaction '\(label)' read Store<\(S.self)>, "
            + (store.core.lane === lane
              ? "outside the transaction's closure" : "a store on another dispatcher")
            + "; its current state was read instead, which is not part of the transaction.",
          fileID: "\(file)", line: line))
      return store.core.state
    }
    guard let staged = staged[ObjectIdentifier(store.core)] as? Staged<S> else {
      // On the lane, which is the only writer of `current`: no lock needed.
      return store.core.current
    }
    guard !staged.isUpdating else {
      lane.reporter.report(
        ReportedIssue(
          kind: .stateReadInsideUpdate,
          message: "tx.state(of: Store<\(S.self)>) was read inside an update of the same store; "
            + "use the state the update receives. The state before the transaction '\(label)' "
            + "was returned instead.",
          fileID: "\(file)", line: line))
      return staged.before
    }
    return staged.working
  }

  /// Abandons the transaction: every store keeps its state from before it, and nothing is
  /// notified.
  ///
  /// - Throws: Always; let it propagate out of the transaction's closure.
  public func abort() throws -> Never {
    throw TransactionError.aborted
  }

  /// The staged copy of `core`, made on first use.
  func stage<S>(_ core: StoreCore<S>) -> Staged<S> {
    if let existing = staged[ObjectIdentifier(core)] as? Staged<S> { return existing }
    let new = Staged(core: core)
    staged[ObjectIdentifier(core)] = new
    order.append(new)
    return new
  }
}

/// Why a transaction did not commit.
public enum TransactionError: Error, Sendable, Hashable {
  /// ``Transaction/abort()`` was called.
  case aborted
  /// The transaction touched a store on another dispatcher.
  case foreignStore
}

/// What became of a transaction.
public enum TransactionOutcome: Sendable {
  /// Every change was applied and notified.
  case committed
  /// ``Transaction/abort()`` was called; nothing changed.
  case aborted
  /// The closure threw; nothing changed.
  case failed(any Error)
  /// The transaction was queued and will run later: the lane is paused, or the caller is code
  /// running on the lane (which cannot wait for the lane without deadlocking).
  case queued
}

/// The action middleware and `onAction` taps see for a committed transaction.
public struct TransactionCommitted: Action {
  /// The transaction's label.
  public let label: String
  /// How many stores it changed.
  public let storeCount: Int
}

/// A store's state staged in a transaction.
protocol StagedStore: AnyObject {
  /// Whether an `update` body holds the staged state as its `inout` parameter right now.
  var isUpdating: Bool { get }
  /// Actions dispatched while `isUpdating`, reduced when the update's body returns.
  var deferred: [(action: any Action, slot: Int)] { get set }
  /// Reduces `action` into the staged state with the handlers of `slot`.
  func reduce(_ action: any Action, slot: Int)
  /// Runs taps and `before` middleware, then publishes the staged state.
  func publish(_ event: TransactionCommitted)
  /// Runs `after` middleware and notifies observers.
  func finish(_ event: TransactionCommitted)
}

extension StagedStore {
  /// Reduces `action` into the staged state, or after the current update when there is one.
  func reduceOrDefer(_ action: any Action, slot: Int) {
    if isUpdating {
      deferred.append((action, slot))
    } else {
      reduce(action, slot: slot)
    }
  }
}

final class Staged<State: Sendable>: StagedStore, @unchecked Sendable {
  // @unchecked Sendable: used only on the lane.
  let core: StoreCore<State>
  var isUpdating = false
  var deferred: [(action: any Action, slot: Int)] = []
  let before: State
  var working: State

  init(core: StoreCore<State>) {
    self.core = core
    before = core.current
    working = before
  }

  /// Runs `body` on the staged state, then the actions dispatched meanwhile. While it runs,
  /// `isUpdating` keeps everything else away from `working`, whose exclusive access `body`
  /// holds.
  func update(_ body: (inout State) throws -> Void) rethrows {
    isUpdating = true
    defer {
      isUpdating = false
      let pending = deferred
      deferred.removeAll()
      for entry in pending { reduce(entry.action, slot: entry.slot) }
    }
    try body(&working)
  }

  func reduce(_ action: any Action, slot: Int) {
    core.table.run(slot: slot, state: &working, action: action)
  }

  func publish(_ event: TransactionCommitted) {
    core.publish(working, before: before, event: event)
  }

  func finish(_ event: TransactionCommitted) {
    core.finishPublish(before: before, event: event)
  }
}
