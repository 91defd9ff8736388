import Dispatch

/// The receiving end of one observer: its gate, its body and, for queued deliveries, a mailbox.
@usableFromInline
final class Sink<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `pending` and `scheduled` are only touched under `lock`; the rest is
  // immutable or Sendable.
  @usableFromInline let gate = Gate()
  /// Calls the observer; returns `false` when the observer's owner is gone.
  @usableFromInline let body: @Sendable (Value) -> Bool
  private let delivery: Delivery
  /// `nil` for a synchronous sink that is not serialized: values are delivered at once.
  @usableFromInline let lock: InternalLock?
  private var pending: [Value] = []
  private var scheduled = false

  /// Creates a sink.
  ///
  /// - Parameters:
  ///   - delivery: Where the body runs.
  ///   - serialized: For a synchronous sink sent to from several threads at once (an error
  ///     channel): values go through the mailbox, and a thread that finds another delivering
  ///     leaves its value to it, so none is lost and the body never runs concurrently with
  ///     itself. A store's synchronous observers do not need it: the lane calls them one at a
  ///     time.
  ///   - body: Calls the observer; returns `false` when the observer's owner is gone.
  init(delivery: Delivery, serialized: Bool = false, body: @escaping @Sendable (Value) -> Bool) {
    self.body = body
    self.delivery = delivery
    if case .synchronous = delivery, !serialized { lock = nil } else { lock = InternalLock() }
  }

  /// Delivers `value` now (synchronous) or posts it to the mailbox.
  @inlinable @inline(__always)
  func send(_ value: Value) {
    if lock == nil { return deliver(value) }
    post(value)
  }

  /// Posts `value` to the mailbox, and schedules a drain unless one is pending.
  @usableFromInline
  func post(_ value: Value) {
    guard let lock else { return deliver(value) }
    lock.lock()
    pending.append(value)
    let mustSchedule = !scheduled
    scheduled = true
    lock.unlock()
    if mustSchedule { schedule() }
  }

  @inlinable @inline(__always)
  func deliver(_ value: Value) {
    var ownerAlive = true
    _ = gate.run { ownerAlive = body(value) }
    if !ownerAlive { ownerIsGone() }
  }

  /// The body said its owner is gone: cancels the gate. The store sweeps cancelled observers
  /// out of its registry when it next sees them.
  @usableFromInline @inline(never)
  func ownerIsGone() {
    gate.cancel()
  }

  private func schedule() {
    switch delivery {
    case .synchronous: drain()
    case .queue(let queue): queue.async { self.drain() }
    case .mainActor: Task { @MainActor in self.drain() }
    }
  }

  /// Delivers everything posted, in order; new posts during the drain join the same drain, so
  /// the observer is never called concurrently with itself.
  private func drain() {
    guard let lock else { return }
    while true {
      lock.lock()
      if pending.isEmpty {
        scheduled = false
        lock.unlock()
        return
      }
      let batch = pending
      pending.removeAll(keepingCapacity: true)
      lock.unlock()
      ThreadContext.delivering {
        for value in batch where !gate.isCancelled { deliver(value) }
      }
    }
  }
}
