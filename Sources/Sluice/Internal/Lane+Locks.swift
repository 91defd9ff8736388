extension Lane {
  /// Holds the lane for `lock`.
  func pause(_ lock: Lock) {
    self.lock.withLock {
      pauseCount += 1
      locks[ObjectIdentifier(lock)] = WeakLock(lock: lock)
      word.bitwiseOr(Lane.paused, ordering: .relaxed)
    }
  }

  /// Lets go of the hold of the lock with this identity; when it was the last, replays the
  /// queue before returning.
  ///
  /// When another thread holds the lane (it is finishing a step), the replay runs there; a
  /// caller that holds no lane waits for it, behind a no-op queued after the held items, so
  /// `release()` still returns after the replay. A caller running on a lane does not wait: the
  /// holder could be waiting for it.
  func unpause(_ id: ObjectIdentifier) {
    let resume: Bool = lock.withLock {
      guard locks.removeValue(forKey: id) != nil else { return false }
      pauseCount -= 1
      guard pauseCount == 0 else { return false }
      word.bitwiseAnd(~Lane.paused, ordering: .relaxed)
      return !queue.isEmpty
    }
    guard resume else { return }
    if claimOrFlag() {
      beginDrain()
      finishDrain()
    } else if ThreadContext.drainDepth == 0 {
      submit(.work {}, mode: .sync, bypass: false, file: #fileID, line: #line)
    }
  }

  /// The locks held now.
  var heldLocks: [Lock] { lock.withLock { locks.values.compactMap(\.lock) } }

  /// Processes an exclusive action with `lock` as the current lock (so the reactions it causes
  /// can take it); releases the lock afterwards when it autoreleases and no store changed.
  func processExclusive(_ action: any Action, under lock: Lock) {
    let actionType = type(of: action)
    let cores = routeCores(for: actionType)
    let before = cores.map { $0.snapshot() }
    for core in cores { core.reducedInStep = false }
    currentLock = lock
    process(action, type: actionType)
    currentLock = nil
    // A store changed when it reduced the action (not dropped by middleware, not only on the
    // route for its taps) and its state differs (or cannot be compared).
    let changed = zip(cores, before).contains { core, snapshot in
      core.reducedInStep && core.differs(from: snapshot)
    }
    if lock.autoreleases, !changed { lock.release() }
  }
}
