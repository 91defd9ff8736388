extension Dispatcher {
  /// Changes to one or several stores of a lane, applied as one step: nothing interleaves, every
  /// touched store notifies once (with `old` = its state before the transaction), and an abort
  /// or an error leaves every store exactly as it was, with nothing notified.
  ///
  /// You get a transaction from ``Dispatcher/transaction(_:file:line:_:)-12mbq`` (or its `async`
  /// form, ``Dispatcher/transaction(_:file:line:_:)-gulc``); it is valid only inside that
  /// closure, which runs on the lane:
  ///
  /// ```swift
  /// dispatcher.transaction("login") { tx in
  ///   try tx.update(session) { $0.user = user }
  ///   tx.dispatch(CartRestored(items: saved))    // reduced into the staged states
  ///   if tx.state(of: session).user == nil { try tx.abort() }
  /// }
  /// ```
  ///
  /// The stores are changed on staged copies; readers of `store.state` on other threads keep
  /// seeing the states before the transaction until it commits. Middleware and `onAction` taps
  /// see a committed transaction as one ``TransactionCommitted`` action.
  ///
  /// A transaction is not `Sendable`, so the compiler keeps it inside its closure: capturing it
  /// in a `Task` or another `@Sendable` closure, or handing it to another thread, does not
  /// compile, and the closure (itself `@Sendable`) cannot store it outside. A use that code
  /// opting out of those checks still makes is reported as
  /// ``ReportedIssue/Kind/transactionUsedOutsideItsClosure`` and does nothing.
  public final class Transaction {
    // Not Sendable: every member is used only on the lane, inside the transaction's closure. The
    // compiler rejects sending it elsewhere (a `Task`, a `@Sendable` closure, another thread), and
    // the closure, being `@Sendable`, cannot store it outside; `isUsable` reports a use the
    // compiler cannot see (code that opted out of its checks, e.g. `nonisolated(unsafe)`).
    /// The transaction's name, for middleware, taps and reports.
    public let label: String
    @usableFromInline let lane: Lane
    /// The first of the stores staged so far, which are linked through `nextStaged` in the order
    /// they were first changed (lane only). Each core keeps its staged state itself
    /// (`StoreCore.stagedWorking`), so staging allocates nothing.
    @exclusivity(unchecked) private var firstStaged: AnyStoreCore?
    @exclusivity(unchecked) private var lastStaged: AnyStoreCore?
    @exclusivity(unchecked) private var stagedCount = 0
    /// The actions reduced, whose effects start when the transaction commits.
    @exclusivity(unchecked) private(set) var dispatched: [any Action] = []
    /// Whether the transaction's closure is running (lane only).
    @usableFromInline @exclusivity(unchecked) var isOpen = true

    init(label: String, lane: Lane) {
      self.label = label
      self.lane = lane
    }

    /// The number of stores the transaction changed so far; for tests.
    package var touchedStoreCount: Int { stagedCount }

    /// Changes a store's staged state directly (Flask's mixers, `mix…with…react`).
    ///
    /// While `body` runs, it holds the store's staged state as its `inout` parameter, so inside
    /// it, for the same store:
    /// - ``state(of:file:line:)`` is a misuse (read the parameter instead): it is reported as
    ///   ``ReportedIssue/Kind/stateReadInsideUpdate`` and returns the state from before the
    ///   transaction;
    /// - another `update` is a misuse: it is reported as ``ReportedIssue/Kind/reentrantUpdate``,
    ///   does not run, and aborts the transaction (it throws);
    /// - an action passed to ``dispatch(_:file:line:)`` is reduced into this store right after `body`
    ///   returns (other stores reduce it at once).
    ///
    /// Used outside the transaction's closure (after it returned, or from another thread, which
    /// only code opting out of the compiler's checks can do), `update` does nothing: it is
    /// reported as ``ReportedIssue/Kind/transactionUsedOutsideItsClosure`` and throws.
    ///
    /// - Throws: What `body` throws, or Sluice's error when the store is on another dispatcher
    ///   (the outcome is then ``TransactionOutcome/failed(_:)``) or for a re-entrant update (the
    ///   outcome is then ``TransactionOutcome/aborted``); each aborts the transaction.
    @inlinable
    public func update<S>(
      _ store: Store<S>, file: StaticString = #fileID, line: UInt = #line,
      _ body: (inout S) throws -> Void
    ) throws {
      // Inlinable, so the staging and the call of `body` are specialized for `S`: generic code
      // would look the metadata of `S?` and its relatives up at run time on every call.
      let core = store.core
      guard core.lane === lane else { throw TransactionError.foreignStore }
      guard isUsable(file: file, line: line) else { throw TransactionError.aborted }
      if !core.isStaged {
        core.stagedWorking = core.current  // On the lane, the only writer of `current`.
        enlist(core)
      }
      guard !core.isUpdatingStaged else {
        reportReentrantUpdate(of: S.self, file: file, line: line)
        throw TransactionError.aborted
      }
      try core.updateStaged(body)
    }

    /// Reduces an action into the staged states of every store on the lane that handles it.
    ///
    /// Middleware and taps do not see the action itself; they see the committed transaction.
    /// Its effects start when the transaction commits. Used outside the transaction's closure
    /// (see ``update(_:file:line:_:)``), it does nothing and is reported as
    /// ``ReportedIssue/Kind/transactionUsedOutsideItsClosure``.
    public func dispatch(_ action: some Action, file: StaticString = #fileID, line: UInt = #line) {
      guard isUsable(file: file, line: line) else { return }
      dispatched.append(action)
      for core in lane.routeCores(for: type(of: action)) {
        guard
          let slot = core.slot(for: ObjectIdentifier(type(of: action)))
            ?? (core.hasCatchAll ? -1 : nil)
        else { continue }
        if !core.isStaged {
          core.transactionOp(core, .stage, self)
          enlist(core)
        }
        // Into a store being updated, after its update's body returns.
        core.reduceInTransaction(action, slot: slot)
      }
    }

    /// A store's state as the transaction sees it: staged when changed, current otherwise.
    ///
    /// Inside ``update(_:file:line:_:)`` of the same store, this is a misuse (the update's body
    /// has the state as its `inout` parameter): it is reported as
    /// ``ReportedIssue/Kind/stateReadInsideUpdate`` and returns the store's state from before the
    /// transaction. A store on another dispatcher is not part of the transaction: its `state` is
    /// read (thread-safe, but it may change while the transaction runs) and the misuse is
    /// reported as ``ReportedIssue/Kind/foreignStoreInTransaction``. Used outside the
    /// transaction's closure (see ``update(_:file:line:_:)``), it reads the store's `state` and
    /// the misuse is reported as ``ReportedIssue/Kind/transactionUsedOutsideItsClosure``.
    @inlinable
    public func state<S>(
      of store: Store<S>, file: StaticString = #fileID, line: UInt = #line
    ) -> S {
      let core = store.core
      guard core.lane === lane else {
        reportForeignRead(of: S.self, file: file, line: line)
        return core.state
      }
      guard isUsable(file: file, line: line) else { return core.state }
      // On the lane, which is the only writer of `current`: no lock needed.
      guard core.isStaged else { return core.current }
      guard !core.isUpdatingStaged, let working = core.stagedWorking else {
        reportReadInsideUpdate(of: S.self, file: file, line: line)
        return core.current
      }
      return working
    }

    /// Abandons the transaction: every store keeps its state from before it, and nothing is
    /// notified.
    ///
    /// - Throws: Always; let it propagate out of the transaction's closure.
    public func abort() throws -> Never {
      throw TransactionError.aborted
    }

    // MARK: - Internals, kept out of the inlined code

    /// Whether the transaction may be used now: its closure is running, on this thread, which
    /// holds the lane. Reports the misuse otherwise.
    @usableFromInline
    func isUsable(file: StaticString, line: UInt) -> Bool {
      // The thread first: `isOpen` belongs to the thread that holds the lane (the closure's, or
      // a later holder's, after the lane's lock), and another thread must not even read it.
      let onTheLane = lane.isCurrentThreadDraining
      if onTheLane, isOpen { return true }
      report(
        .transactionUsedOutsideItsClosure,
        "the transaction '\(label)' was used "
          + (onTheLane
            ? "after its closure returned"
            : "outside its closure (from another thread, or after it returned)")
          + "; the call did nothing (a read returned the store's current state).",
        file: file, line: line)
      return false
    }

    /// Adds a store whose staged state was just made to the transaction.
    @usableFromInline
    func enlist(_ core: AnyStoreCore) {
      core.isStaged = true
      if let lastStaged { lastStaged.nextStaged = core } else { firstStaged = core }
      lastStaged = core
      stagedCount &+= 1
    }

    /// Reports that `update` ran inside an update of the same store (the transaction aborts).
    @usableFromInline
    func reportReentrantUpdate(of type: Any.Type, file: StaticString, line: UInt) {
      report(
        .reentrantUpdate,
        "tx.update(Store<\(type)>) was called inside an update of the same store; change the "
          + "state the outer update receives instead. The transaction '\(label)' was aborted.",
        file: file, line: line)
    }

    /// Reports that `state(of:)` read a store inside an update of that store.
    @usableFromInline
    func reportReadInsideUpdate(of type: Any.Type, file: StaticString, line: UInt) {
      report(
        .stateReadInsideUpdate,
        "tx.state(of: Store<\(type)>) was read inside an update of the same store; use the state "
          + "the update receives. The state before the transaction '\(label)' was returned "
          + "instead.",
        file: file, line: line)
    }

    /// Reports that `state(of:)` read a store of another dispatcher.
    @usableFromInline
    func reportForeignRead(of type: Any.Type, file: StaticString, line: UInt) {
      report(
        .foreignStoreInTransaction,
        "the transaction '\(label)' read Store<\(type)>, a store on another dispatcher; its "
          + "current state was read instead, which is not part of the transaction.",
        file: file, line: line)
    }

    private func report(
      _ kind: ReportedIssue.Kind, _ message: String, file: StaticString, line: UInt
    ) {
      lane.reporter.report(
        ReportedIssue(kind: kind, message: message, fileID: "\(file)", line: line))
    }

    /// Ends the transaction's closure: from now on every use is a reported misuse.
    func close() {
      isOpen = false
    }

    /// What middleware and taps see for this transaction once it committed.
    @usableFromInline var committedEvent: TransactionCommitted {
      TransactionCommitted(label: label, storeCount: stagedCount)
    }

    /// Publishes every staged state, then notifies (lane only, after the closure returned).
    func commit() {
      var next = firstStaged
      while let core = next {
        core.transactionOp(core, .publish, self)
        next = core.nextStaged
      }
      forEachUnlinking { core in core.transactionOp(core, .finish, self) }
    }

    /// Drops every staged state: the stores keep theirs and nothing is notified.
    func discard() {
      forEachUnlinking { core in core.transactionOp(core, .discard, self) }
    }

    /// Calls `body` for each staged store in order, unlinking them: the transaction ends with
    /// no store referring to another.
    private func forEachUnlinking(_ body: (AnyStoreCore) -> Void) {
      var next = firstStaged
      firstStaged = nil
      lastStaged = nil
      while let core = next {
        next = core.nextStaged
        core.nextStaged = nil
        body(core)
      }
    }
  }
}

/// Why a transaction did not commit, thrown out of its closure by Sluice; the caller reads the
/// ``TransactionOutcome``.
@usableFromInline enum TransactionError: Error, Sendable, Hashable {
  /// ``Dispatcher/Transaction/abort()`` was called.
  case aborted
  /// The transaction touched a store on another dispatcher.
  case foreignStore
}

/// What became of a transaction.
public enum TransactionOutcome: Sendable {
  /// Every change was applied and notified.
  case committed
  /// ``Dispatcher/Transaction/abort()`` was called; nothing changed.
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

/// What a transaction asks of one store's core; see `AnyStoreCore.transactionOp` (lane only).
@usableFromInline
enum TransactionStep {
  /// Copy the current state into the staged state.
  case stage
  /// Run taps and `before` middleware, then publish the staged state.
  case publish
  /// Run `after` middleware and notify the observers.
  case finish
  /// Drop the staged state.
  case discard
}
