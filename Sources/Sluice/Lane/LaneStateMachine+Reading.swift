// What the lane reads of its state machine's value, without changing it.
extension LaneStateMachine {
  var isPaused: Bool { !locks.isEmpty }
  var queueDepth: Int { mainDepth + bypass.count }
  /// The main queue's items and those lent from it to the drainer.
  var mainDepth: Int { main.count + lent }
  var isIdle: Bool { drainer == .none }

  /// Whether a caller may take the lane: it is idle, or the thread it was handed to has not
  /// started on it (under contention, that thread may not get a core for a long time).
  var canClaim: Bool {
    switch drainer {
    case .none, .worker(started: false), .heir: return true
    case .fast, .caller, .finishing, .worker(started: true): return false
    }
  }

  /// Whether the main queue is below the bound, if any, counting the places senders reserved.
  var hasRoom: Bool { maxQueueDepth.map { mainDepth + reservedRoom < $0 } ?? true }

  /// Whether an item can run now.
  var hasRunnable: Bool { !bypass.isEmpty || (!main.isEmpty && locks.isEmpty) }

  /// Whether the lock-free shortcut must stay closed: anything queued, a lock, a drainer other
  /// than a shortcut one, or a retired core kept (handed back when the holder lets go).
  var needsAttention: Bool {
    !main.isEmpty || !bypass.isEmpty || !locks.isEmpty || !retired.isEmpty
      || (drainer != .none && drainer != .fast)
  }
}
