import Dispatch

extension Lane {
  func submit(
    _ payload: Payload, mode: DispatchMode, bypass: Bool, lock itemLock: Lock? = nil,
    file: StaticString, line: UInt
  ) {
    if isCurrentThreadDraining {
      return enqueueFromInside(payload, bypass: bypass, lock: itemLock, file: file, line: line)
    }
    switch mode {
    case .async:
      append(payload, completion: .none, bypass: bypass, lock: itemLock)
      if claimOrFlag() {
        workerQueue.async {
          self.beginDrain()
          self.finishDrain()
        }
      }
    case .sync:
      // A thread that holds another lane must not wait for this one: the holder of this lane
      // could be waiting for that one. Such a call returns as soon as the item is queued.
      // While the lane is paused, an action is queued and the call returns: the thread holding
      // the lock could be this one.
      let (seq, waits) = append(
        payload, completion: ThreadContext.drainDepth == 0 ? .waiter : .none, bypass: bypass,
        lock: itemLock)
      if claimOrFlag() {
        beginDrain()
        finishDrain()
      } else if waits {
        // Returns once the action and every action it caused were processed (S2).
        lock.lock()
        while roots[seq] != nil { lock.wait() }
        lock.unlock()
      }
    }
  }

  /// Queues an item from outside the lane; returns its sequence number and whether a waiting
  /// caller may wait for it (not while the lane is paused, unless it bypasses the pause).
  @discardableResult
  func append(
    _ payload: Payload, completion: Completion, bypass toBypass: Bool, lock itemLock: Lock? = nil
  ) -> (seq: UInt64, waits: Bool) {
    lock.lock()
    let seq = nextSeq
    nextSeq += 1
    var root: UInt64 = 0
    var waits = false
    switch completion {
    case .none: break
    case .waiter:
      if pauseCount == 0 || toBypass {
        root = seq
        waits = true
        roots[seq] = RootProgress(outstanding: 1, continuation: nil)
      }
    case .resume(let continuation):
      root = seq
      roots[seq] = RootProgress(outstanding: 1, continuation: continuation)
    }
    enqueueLocked(
      Item(payload: payload, seq: seq, depth: 0, chain: nil, lock: itemLock, root: root),
      bypass: toBypass)
    lock.unlock()
    return (seq, waits)
  }

  /// Appends an item to the bypass queue or the main queue (`lock` held).
  func enqueueLocked(_ item: Item, bypass toBypass: Bool) {
    if toBypass {
      bypass.append(item)
      word.bitwiseOr(Lane.bypassPending, ordering: .relaxed)
    } else {
      queue.append(item)
    }
  }

  /// Queues an item dispatched by code running on the lane (a reducer, middleware, observer or
  /// lane work): it runs after the current item, before the lane is let go.
  func enqueueFromInside(
    _ payload: Payload, bypass toBypass: Bool = false, lock itemLock: Lock? = nil,
    file: StaticString, line: UInt
  ) {
    var depth = currentDepth
    var chain = currentChain
    if case .action(let action) = payload {
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
      depth += 1
      chain = ChainLink(type: currentActionType, parent: currentChain)
      if depth > configuration.maxChainDepth {
        reporter.report(
          ReportedIssue(
            kind: .runawayActionChain,
            message:
              "an action chain on '\(configuration.label)' grew past maxChainDepth "
              + "(\(configuration.maxChainDepth)); \(type(of: action)) was dropped. Chain: "
              + ChainLink.describe(chain, then: type(of: action)),
            fileID: "\(file)", line: line))
        return
      }
    }
    lock.lock()
    let seq = nextSeq
    nextSeq += 1
    // The new item belongs to the chain of the item being processed: its waiter waits for it too.
    let root = currentRoot != 0 && roots[currentRoot] != nil ? currentRoot : 0
    if root != 0 { roots[root]?.outstanding += 1 }
    enqueueLocked(
      Item(payload: payload, seq: seq, depth: depth, chain: chain, lock: itemLock, root: root),
      bypass: toBypass)
    lock.unlock()
    word.bitwiseOr(Lane.pending, ordering: .releasing)
  }

  func waitForCapacity(below bound: Int) async {
    while lock.withLock({ queue.count >= bound }) {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        lock.lock()
        if queue.count < bound {
          lock.unlock()
          continuation.resume()
        } else {
          capacityWaiters.append(continuation)
          lock.unlock()
        }
      }
    }
  }
}
