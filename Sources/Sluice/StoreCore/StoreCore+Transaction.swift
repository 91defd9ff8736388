import Synchronization

/// A store's part in a transaction (lane only). The staged state lives in the core
/// (`stagedWorking`), and a committed transaction's path is inlinable, specialized for the state
/// type; taps, middleware and recorders take the generic slow path.
extension StoreCore {
  /// Does what a transaction asks (lane only); see ``TransactionStep``.
  @inlinable
  func transact(_ step: TransactionStep, in transaction: Transaction) {
    switch step {
    case .stage: stagedWorking = current
    case .publish: publishStaged(transaction)
    case .finish: finishStaged(transaction)
    case .discard: discardStaged()
    }
  }

  /// Runs `body` on the staged state, then the actions dispatched meanwhile. While it runs,
  /// `isUpdatingStaged` keeps everything else away from the state, which `body` holds (moved out
  /// of `stagedWorking`, so changing it copies nothing the store does not already share).
  @inlinable
  func updateStaged(_ body: (inout State) throws -> Void) rethrows {
    isUpdatingStaged = true
    defer {
      isUpdatingStaged = false
      if !deferredInTransaction.isEmpty { reduceDeferredInTransaction() }
    }
    var working = stagedWorking.take() ?? current
    defer { stagedWorking = working }
    try body(&working)
  }

  /// Publishes the staged state of a committed transaction: taps and `before` middleware
  /// first.
  @inlinable
  func publishStaged(_ transaction: Transaction) {
    guard let new = stagedWorking.take() else { return }
    if extras.load(ordering: .relaxed) > 0 { publishStagedExtras(transaction.committedEvent) }
    roundBoundary = registry.nextOrderPeek
    if needsOld { pendingOld = current }
    setCurrent(new)
  }

  /// After every store of a transaction was published: `after` middleware and recorders, then
  /// observers.
  @inlinable
  func finishStaged(_ transaction: Transaction) {
    isStaged = false
    if stagedBefore != nil { finishStagedExtras(transaction.committedEvent) }
    if hasObservers { notify() }
  }

  /// Drops the staged state of a transaction that did not commit.
  @usableFromInline
  func discardStaged() {
    isStaged = false
    isUpdatingStaged = false
    deferredInTransaction.removeAll()
    stagedBefore = nil
    // Released on the lane, under no lock: a deinit may read the store.
    stagedWorking = nil
  }

  /// Taps and `before` middleware see the committed transaction; the state before it is kept
  /// for `after` middleware and recorders.
  @usableFromInline
  func publishStagedExtras(_ event: TransactionCommitted) {
    let before = current
    stagedBefore = before
    for tap in taps where !tap.gate.isCancelled {
      tap.send(ActionEvent(action: event, stateBefore: before))
    }
    for entry in middleware { entry.middleware.before?(event, before) }
  }

  /// `after` middleware and recorders see the committed transaction, with the state before it
  /// (kept by `publishStagedExtras`).
  @usableFromInline
  func finishStagedExtras(_ event: TransactionCommitted) {
    guard let before = stagedBefore.take() else { return }
    if !middleware.isEmpty {
      let after = current
      for entry in middleware.reversed() { entry.middleware.after?(event, before, after) }
    }
    record(event, before: before, reduced: true)
  }
}
