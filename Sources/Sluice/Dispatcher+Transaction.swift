extension Dispatcher {
  /// Runs `body` as one transaction on the lane and commits it, unless it aborts or throws.
  ///
  /// The whole transaction is one lane step: no action interleaves. On commit every touched
  /// store notifies once, with `old` its state before the transaction. On ``Dispatcher/Transaction/abort()``
  /// or any error, every store keeps its state and nothing is notified.
  ///
  /// Called from code running on the lane, or while the lane is paused, the transaction is
  /// queued and this returns ``TransactionOutcome/queued``.
  ///
  /// ```swift
  /// let outcome = dispatcher.transaction("checkout") { tx in
  ///   try tx.update(cart) { $0.items.removeAll() }
  ///   try tx.update(orders) { $0.placed.append(order) }
  /// }
  /// ```
  @discardableResult
  public func transaction(
    _ label: String = "transaction", file: StaticString = #fileID, line: UInt = #line,
    _ body: @escaping @Sendable (Transaction) throws -> Void
  ) -> TransactionOutcome {
    let lane = self.lane
    if let refused = lane.refuseOnSharedLane("transaction") { return .failed(refused) }
    let origin = lane.callerOrigin(file, line)
    if let outcome = lane.performNow({ lane.runTransaction(label: label, origin: origin, body) }) {
      return outcome
    }
    return lane.performReturning(.change) {
      lane.runTransaction(label: label, origin: origin, body)
    } ?? .queued
  }

  /// Runs `body` as one transaction on the lane, without blocking a thread; resumes once it
  /// committed or was abandoned. See ``transaction(_:file:line:_:)-12mbq``.
  @discardableResult
  public func transaction(
    _ label: String = "transaction", file: StaticString = #fileID, line: UInt = #line,
    _ body: @escaping @Sendable (Transaction) throws -> Void
  ) async -> TransactionOutcome {
    let lane = self.lane
    if let refused = lane.refuseOnSharedLane("transaction") { return .failed(refused) }
    let origin = lane.callerOrigin(file, line)
    if let outcome = lane.performNow({ lane.runTransaction(label: label, origin: origin, body) }) {
      return outcome
    }
    return await lane.performAsync(.change) {
      lane.runTransaction(label: label, origin: origin, body)
    } ?? .queued
  }
}

extension Lane {
  /// Runs a transaction on the lane (lane only).
  func runTransaction(
    label: String, origin: DispatchOrigin? = nil,
    _ body: @Sendable (Dispatcher.Transaction) throws -> Void
  ) -> TransactionOutcome {
    if let origin, let inspector = activeInspector { inspector.workStarted(origin: origin) }
    let transaction = Dispatcher.Transaction(label: label, lane: self)
    do {
      try body(transaction)
    } catch {
      transaction.close()
      transaction.discard()
      return outcome(ofFailed: label, error)
    }
    transaction.close()
    transaction.commit()
    // What follows the reducers of each action (middleware did not see them).
    for action in transaction.dispatched {
      let actionType = type(of: action)
      let routes = routes(for: ObjectIdentifier(actionType), type: actionType)
      if let extras = lastExtras {
        finishStep(action, extras: extras, routes: routes, consultingMiddleware: false)
      }
    }
    return .committed
  }

  /// The outcome of a transaction whose closure threw `error`, reported when it touched a store
  /// of another dispatcher.
  private func outcome(ofFailed label: String, _ error: any Error) -> TransactionOutcome {
    switch error {
    case TransactionError.aborted:
      return .aborted
    case TransactionError.foreignStore:
      report(
        .foreignStoreInTransaction,
        "the transaction '\(label)' touched a store on another dispatcher; it was "
          + "abandoned.")
      return .failed(error)
    default:
      return .failed(error)
    }
  }
}
