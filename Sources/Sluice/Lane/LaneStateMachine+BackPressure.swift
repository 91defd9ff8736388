// The bound of the main queue (`maxQueueDepth`, lent items included): the overflow a submit
// returns, and the senders that wait for room (internal state, so that this file can touch it).
extension LaneStateMachine {
  /// The main queue's depth if past the bound and not reported since it was within; else `nil`.
  mutating func takeOverflow() -> Int? {
    guard let bound = maxQueueDepth, mainDepth > bound, !overflowReported else { return nil }
    overflowReported = true
    return mainDepth
  }

  /// After an item left the main queue: the oldest senders waiting for room go on, each with a
  /// place reserved for the item it submits next.
  mutating func wakeCapacityWaiters(into wake: inout Wake) {
    if overflowReported, let bound = maxQueueDepth, mainDepth <= bound {
      overflowReported = false
    }
    guard let bound = maxQueueDepth, !capacityWaiters.isEmpty else { return }
    let room = min(max(0, bound - mainDepth - reservedRoom), capacityWaiters.count)
    guard room > 0 else { return }
    wake.resumers.append(contentsOf: capacityWaiters[..<room])
    capacityWaiters.removeFirst(room)
    reservedRoom += room
  }

  /// A sender takes a place below the bound for the item it submits next
  /// (``submitReserved(_:completion:)``); returns `false` when there
  /// is none: `resumer` then waits, and is resumed with a place reserved. Looking and taking are
  /// one transition, so two senders never take the last place.
  mutating func reserveRoom(orWait resumer: Resumer) -> Bool {
    guard maxQueueDepth != nil else { return true }
    guard hasRoom, capacityWaiters.isEmpty else {
      capacityWaiters.append(resumer)
      stopBatch()
      return false
    }
    reservedRoom += 1
    return true
  }

  /// ``submit(_:bypass:completion:)`` of a sender's item into the place it reserved
  /// (``reserveRoom(orWait:)``), in the same transition.
  mutating func submitReserved(_ payload: Payload, completion: Completion) -> SubmitAction {
    if reservedRoom > 0 { reservedRoom -= 1 }
    return submit(payload, bypass: false, completion: completion).action
  }
}
