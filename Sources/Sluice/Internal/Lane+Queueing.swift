extension Lane {
  /// Queues an item, from the lane itself or from outside, and does what the machine says.
  func submit(
    _ work: Work, mode: DispatchMode, bypass: Bool, file: StaticString, line: UInt
  ) {
    if isCurrentThreadDraining {
      return enqueueFromInside(work, bypass: bypass, file: file, line: line)
    }
    // A thread that holds another lane must not wait for this one: the holder of this lane
    // could be waiting for that one.
    let completion: Machine.Completion =
      mode == .async ? .none : ThreadContext.drainDepth == 0 ? .block : .noBlock
    carryOut(storage.withMachine { $0.submit(work, bypass: bypass, completion: completion) })
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
    storage.withMachine { machine in
      if inShortcut, currentRoot == 0 { currentRoot = machine.openFastRoot() }
      machine.submitInside(work, bypass: toBypass, current: currentRoot)
    }
  }

  /// Waits until the main queue is below the bound (``send(_:)`` with a `maxQueueDepth`).
  func waitForCapacity() async {
    while !storage.peek({ $0.hasRoom }) {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        if storage.withMachine({ $0.waitForCapacity(continuation) }) { continuation.resume() }
      }
    }
  }
}
