// The bound of the main queue (`maxQueueDepth`, lent items included): the overflow a submit
// returns, and the senders that wait for room (internal state, so that this file can touch it).
extension LaneStateMachine {
  /// The main queue's depth if past the bound and not reported since it was within; else `nil`.
  mutating func takeOverflow() -> Int? {
    guard let bound = maxQueueDepth, mainDepth > bound, !overflowReported else { return nil }
    overflowReported = true
    return mainDepth
  }

  /// After an item left the main queue: the senders waiting for room go on when there is some.
  mutating func wakeCapacityWaiters(into wake: inout Wake) {
    if overflowReported, let bound = maxQueueDepth, mainDepth <= bound {
      overflowReported = false
    }
    guard let bound = maxQueueDepth, mainDepth < bound, !capacityWaiters.isEmpty else { return }
    wake.resumers.append(contentsOf: capacityWaiters)
    capacityWaiters.removeAll()
  }

  /// A sender waits for room below the bound; returns `true` when there is room now.
  mutating func waitForCapacity(_ resumer: Resumer) -> Bool {
    guard let bound = maxQueueDepth, mainDepth >= bound else { return true }
    capacityWaiters.append(resumer)
    stopBatch()
    return false
  }
}
