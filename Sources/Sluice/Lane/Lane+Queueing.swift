extension Lane {
  /// Queues an item, from the lane itself or from outside, and does what the machine says.
  ///
  /// The bound (`maxQueueDepth`), when the dispatcher has one, never makes a dispatch wait and
  /// never drops an action: an asynchronous dispatch that finds the queue full queues its action
  /// past the bound and returns, and the overflow is reported
  /// (``ReportedIssue/Kind/queueBoundExceeded``, once until the queue is back within the
  /// bound). Back-pressure is `send`'s: it suspends until there is room.
  @usableFromInline
  func submit(
    _ work: QueuedWork, mode: DispatchMode, bypass: Bool, file: StaticString, line: UInt
  ) {
    if isShared, let source = configuration.orderSource, case .action(let action) = work.work.kind {
      return source.submit(action, file: file, line: line)
    }
    if isCurrentThreadDraining {
      return enqueueFromInside(work.work, bypass: bypass, file: file, line: line)
    }
    var work = work
    if isInspected.load(ordering: .relaxed) { work = inspected(work, file: file, line: line) }
    // A thread that holds another lane must not wait for this one: the holder of this lane
    // could be waiting for that one.
    let completion: Machine.Completion =
      mode == .async ? .none : ThreadContext.drainDepth == 0 ? .block : .noBlock
    guard mode == .async, !bypass, configuration.maxQueueDepth != nil else {
      return carryOut(
        storage.withMachine { $0.submit(work, bypass: bypass, completion: completion) })
    }
    let (next, overflow) = storage.withMachine { machine in
      (machine.submit(work, bypass: false, completion: .none), machine.takeOverflow())
    }
    carryOut(next)
    if let overflow { reportOverflow(depth: overflow, file: file, line: line) }
  }

  /// Reports that the main queue grew past `maxQueueDepth`.
  func reportOverflow(depth: Int, file: StaticString, line: UInt) {
    reporter.report(
      ReportedIssue(
        kind: .queueBoundExceeded,
        message: "the queue of '\(configuration.label)' holds \(depth) items, past its "
          + "maxQueueDepth (\(configuration.maxQueueDepth ?? 0)): actions were dispatched "
          + "without waiting for room (dispatch(_:mode: .async), or from the lane itself); "
          + "send(_:) waits for room. None was dropped.",
        fileID: "\(file)", line: line))
  }

  /// Queues an item dispatched by code running on the lane (a reducer, middleware, observer or
  /// lane work): it runs after the items queued before it, and the caller that waits for the
  /// running item's chain waits for it too.
  func enqueueFromInside(
    _ work: Work, bypass toBypass: Bool = false, file: StaticString, line: UInt
  ) {
    var work = work
    if case .action(let action) = work.kind {
      if configuration.reentrancy == .reject {
        reporter.report(
          ReportedIssue(
            kind: .reentrantDispatchRejected,
            message:
              "\(type(of: action)) was dispatched from inside the lane '\(configuration.label)', "
              + "whose re-entrancy policy is .reject; the action was dropped.",
            fileID: "\(file)", line: line))
        return
      }
      work.depth = currentDepth + 1
      work.chain = ChainLink(type: currentActionType, parent: currentChain)
      if let inspector = activeInspector { work.origin = origin(inside: inspector, file, line) }
      if work.depth > configuration.maxChainDepth {
        reporter.report(
          ReportedIssue(
            kind: .runawayActionChain,
            message:
              "an action chain on '\(configuration.label)' grew past maxChainDepth "
              + "(\(configuration.maxChainDepth)); \(type(of: action)) was dropped. Chain: "
              + ChainLink.describe(work.chain, then: type(of: action)),
            fileID: "\(file)", line: line))
        return
      }
    } else {
      work.depth = currentDepth
      work.chain = currentChain
    }
    let overflow = storage.withMachine { machine in
      if inShortcut, currentRoot == 0 { currentRoot = machine.openFastRoot() }
      machine.submitInside(QueuedWork(work), bypass: toBypass, current: currentRoot)
      return machine.takeOverflow()
    }
    if let overflow { reportOverflow(depth: overflow, file: file, line: line) }
  }

  /// Waits until the main queue is below the bound (``send(_:)`` with a `maxQueueDepth`).
  func waitForCapacity() async {
    while !storage.peek({ $0.hasRoom }) {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        if storage.withMachine({ $0.waitForCapacity(continuation) }) { continuation.resume() }
      }
    }
  }
}
