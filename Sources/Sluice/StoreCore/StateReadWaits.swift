/// The state reads that wait, from inside a reducer, for a store whose lock another thread's
/// reducer holds: the wait-for graph of the store locks, in which a cycle is a deadlock.
///
/// A read from inside a reducer never blocks: it retries and registers here while it does.
/// Thread A, reducing store X, reads store Y while thread B, reducing Y, reads X: each waits
/// for a lock the other holds, and neither reducer can finish. The walk follows "waits for a
/// store" (this registry) and "the store's reducer runs on a thread"
/// (``AnyStoreCore/reducingThread``). Under the registry's lock the walk is exact: a registered
/// thread cannot leave its reducer, so the stores it reduces stay held by it, and a store that
/// published a state ends its waiters' wait (they return the published state), so the walk
/// stops there. When the walk comes back to the thread that started it, the member of the
/// cycle with the lowest tag gives up; the others keep waiting and get the result of its step.
enum StateReadWaits {
  private static let waits = Guarded<[UInt: AnyStoreCore]>([:])

  /// Registers that `thread` (a ``ReducerContext/threadTag``) waits for `target`.
  static func begin(thread: UInt, target: AnyStoreCore) {
    waits.withLock { $0[thread] = target }
  }

  /// Removes the registration of `thread`.
  static func end(thread: UInt) {
    // The core goes after the lock: the registry's lock is never held while a value is
    // released.
    let removed = waits.withLock { $0.removeValue(forKey: thread) }
    withExtendedLifetime(removed) {}
  }

  /// Whether `thread` waits on a cycle of waits and is the member that breaks it (the lowest
  /// tag on the cycle).
  static func mustBreakCycle(_ thread: UInt) -> Bool {
    waits.withLock { waits in
      var current = thread
      var lowest = thread
      // Each store has one holder, so the path from `thread` is unique; it either comes back
      // to `thread` (a cycle) or reaches a store that does not block its waiters.
      for _ in 0...waits.count {
        guard let target = waits[current], !target.hasPublished.load(ordering: .acquiring) else {
          return false
        }
        let holder = target.reducingThread.load(ordering: .relaxed)
        if holder == thread { return lowest == thread }
        if holder == 0 { return false }
        lowest = min(lowest, holder)
        current = holder
      }
      return false
    }
  }
}
