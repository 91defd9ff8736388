extension Lane {
  /// Holds the lane for `lock`; blocked callers whose actions can no longer run return.
  func pause(_ lock: Lock) {
    storage.wake(storage.withMachine { $0.pause(WeakLock(id: ObjectIdentifier(lock), lock: lock)) })
  }

  /// Lets go of the hold of the lock with this identity; when it was the last, the held actions
  /// replay before this returns: the caller replays them when the lane is idle, or waits for the
  /// thread holding it to (behind a no-op queued after them), taking the lane over if it is
  /// handed to it. A caller running on a lane does not wait (the holder could be waiting for it),
  /// nor does one that must not block (`mayWait` false: a lock's timeout, on the pool).
  func unpause(_ id: ObjectIdentifier, mayWait: Bool = true) {
    let caller: Machine.ReleaseCaller =
      isCurrentThreadDraining
      ? .drainer : ThreadContext.drainDepth == 0 && mayWait ? .block : .noBlock
    carryOut(
      storage.withMachine {
        $0.release(WeakLock(id: id), caller: caller, barrier: QueuedWork(Work(kind: .work {})))
      })
  }

  /// Processes an exclusive action with `lock` as the current lock (so the reactions it causes
  /// can take it); releases the lock afterwards when it autoreleases and no store changed.
  func processExclusive(_ action: any Action, under lock: Lock) {
    let actionType = type(of: action)
    let cores = routeCores(for: actionType)
    let before = cores.map { $0.snapshot() }
    for core in cores { core.reducedInStep = false }
    currentLock = lock
    process(boxed: action)
    currentLock = nil
    // A store changed when it reduced the action (not dropped by middleware, not only on the
    // route for its taps) and its state differs (or cannot be compared).
    let changed = zip(cores, before).contains { core, snapshot in
      core.reducedInStep && core.differs(from: snapshot)
    }
    if lock.autoreleases, !changed { lock.release() }
  }
}
