import Synchronization

/// A store's part in a transaction (lane only). The staged state lives in the core
/// (`stagedWorking`), and a committed transaction's path is inlinable, specialized for the state
/// type; middleware and watchers take the generic slow path.
extension StoreCore {
  /// Does what a transaction asks (lane only); see ``TransactionStep``.
  @inlinable
  func transact(_ step: TransactionStep, in transaction: Dispatcher.Transaction) {
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

  /// Publishes the staged state of a committed transaction: watchers of ``StepEvent/willStep``
  /// and `before` middleware first.
  @inlinable
  func publishStaged(_ transaction: Dispatcher.Transaction) {
    guard let new = stagedWorking.take() else { return }
    if extras.load(ordering: .relaxed) > 0 { publishStagedExtras(transaction.committedEvent) }
    roundBoundary = registry.nextOrderPeek
    if needsOld { pendingOld = current }
    setCurrent(new)
  }

  /// After every store of a transaction was published: `after` middleware and watchers of
  /// ``StepEvent/stepped``, then observers.
  @inlinable
  func finishStaged(_ transaction: Dispatcher.Transaction) {
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

  /// Watchers and `before` middleware see the committed transaction; the state before it is
  /// kept for `after` middleware and watchers.
  @usableFromInline
  func publishStagedExtras(_ event: TransactionCommitted) {
    let before = current
    stagedBefore = before
    if watchesActions { tell(.willStep, .willStep(event, before: before)) }
    runBefore(event, before: before)
  }

  /// `after` middleware and watchers see the committed transaction, with the state before it
  /// (kept by `publishStagedExtras`).
  @usableFromInline
  func finishStagedExtras(_ event: TransactionCommitted) {
    guard let before = stagedBefore.take() else { return }
    if !middleware.isEmpty { runAfter(event, before: before) }
    record(event, before: before, reduced: true)
  }
}
