extension Lane {
  /// The one way into the lane: queues `work` (an action or lane work, from any thread, the
  /// lane's own included) and does what the machine says. Callers try the shortcut first where
  /// it applies.
  ///
  /// Decided here for every caller: an action on a shared lane goes to its order source; an
  /// item from code running on the lane joins the running item's chain
  /// (``submitInside(_:bypass:completion:file:line:)``); an action from outside gets its origin
  /// while an inspector is attached; a thread that holds another lane never blocks (the holder
  /// of this lane could be waiting for that one). A full queue (`maxQueueDepth`) never makes a
  /// dispatch wait nor drops an action: it is queued past the bound and the overflow reported
  /// (once until the queue is back within the bound); `send` waits for room.
  @usableFromInline
  func submit(
    _ work: QueuedWork, bypass: Bool = false, completion: Completion,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    if isShared, let source = configuration.orderSource, case .action(let action) = work.work.kind {
      source.submit(action, file: file, line: line)
      return completion.resumeNow()
    }
    if isCurrentThreadDraining {
      return submitInside(work.work, bypass: bypass, completion: completion, file: file, line: line)
    }
    var work = work
    if isInspected.load(ordering: .relaxed) { work = inspected(work, file: file, line: line) }
    let waits: Machine.Completion
    switch completion {
    case .none: waits = .none
    case .sync: waits = ThreadContext.drainDepth == 0 ? .block : .noBlock
    case .resume(let continuation): waits = .resume(continuation)
    }
    let (next, overflow) = storage.withMachine {
      $0.submit(work, bypass: bypass, completion: waits)
    }
    carryOut(next)
    if let overflow { reportOverflow(depth: overflow, file: file, line: line) }
  }

  /// ``submit(_:bypass:completion:file:line:)`` from code running on the lane: the item joins
  /// the running item's chain, and a task waiting for it resumes at once. An action is dropped
  /// and reported under `.reject` re-entrancy, or when its chain grows past `maxChainDepth`.
  @inline(never)
  private func submitInside(
    _ work: Work, bypass: Bool, completion: Completion, file: StaticString, line: UInt
  ) {
    defer { completion.resumeNow() }
    var work = work
    work.depth = currentDepth
    work.chain = currentChain
    if case .action(let action) = work.kind {
      guard configuration.reentrancy == .enqueue else {
        return report(
          .reentrantDispatchRejected,
          "\(type(of: action)) was dispatched from inside the lane '\(configuration.label)', "
            + "whose re-entrancy policy is .reject; the action was dropped.", file: file,
          line: line)
      }
      work.depth += 1
      work.chain = ChainLink(type: currentActionType, parent: currentChain)
      if let inspector = activeInspector { work.origin = origin(inside: inspector, file, line) }
      guard work.depth <= configuration.maxChainDepth else {
        return report(
          .runawayActionChain,
          "an action chain on '\(configuration.label)' grew past maxChainDepth "
            + "(\(configuration.maxChainDepth)); \(type(of: action)) was dropped. Chain: "
            + ChainLink.describe(work.chain, then: type(of: action)), file: file, line: line)
      }
    }
    let overflow = storage.withMachine { machine in
      if inShortcut, currentRoot == 0 { currentRoot = machine.openFastRoot() }
      return machine.submitInside(QueuedWork(work), bypass: bypass, current: currentRoot)
    }
    if let overflow { reportOverflow(depth: overflow, file: file, line: line) }
  }

  /// Reports that the main queue grew past `maxQueueDepth`.
  private func reportOverflow(depth: Int, file: StaticString, line: UInt) {
    report(
      .queueBoundExceeded,
      "the queue of '\(configuration.label)' holds \(depth) items, past its maxQueueDepth "
        + "(\(configuration.maxQueueDepth ?? 0)): actions were dispatched without waiting for "
        + "room (dispatch(_:mode: .async), or from the lane itself); send(_:) waits for room. "
        + "None was dropped.", file: file, line: line)
  }

  /// Waits until the main queue is below `maxQueueDepth` and reserves a place there for the
  /// item ``send(_:file:line:)`` submits next (``submitReserved(_:_:file:line:)``), in one
  /// transition: two senders never both take the last place.
  func reserveRoom() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      if storage.withMachine({ $0.reserveRoom(orWait: continuation) }) { continuation.resume() }
    }
  }

  /// ``submit(_:bypass:completion:file:line:)`` of `send`'s item on a bounded lane, into the
  /// place its sender reserved (``reserveRoom()``), in the same transition. `send` runs on no
  /// lane's thread and not on a shared lane, so only the main path of `submit` applies.
  func submitReserved(
    _ work: QueuedWork, _ continuation: UnsafeContinuation<Void, Never>, file: StaticString,
    line: UInt
  ) {
    var work = work
    if isInspected.load(ordering: .relaxed) { work = inspected(work, file: file, line: line) }
    let next = storage.withMachine { $0.submitReserved(work, completion: .resume(continuation)) }
    carryOut(next)
  }
}
