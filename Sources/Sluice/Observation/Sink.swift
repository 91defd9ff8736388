import Dispatch

/// The receiving end of one observer: its gate, its body and, for queued deliveries, a mailbox.
@usableFromInline
final class Sink<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `pending` and `scheduled` are only touched under `lock`; the rest is
  // immutable or Sendable.
  @usableFromInline let gate: Gate
  /// Calls the observer. An observer bound to an owner cancels `gate` when the owner is gone.
  @usableFromInline let body: @Sendable (Value) -> Void
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
  ///   - gate: The observer's gate; a new one by default.
  ///   - body: Calls the observer; an observer bound to an owner cancels `gate` when the owner
  ///     is gone.
  @usableFromInline
  init(
    delivery: Delivery, serialized: Bool = false, gate: Gate = Gate(),
    body: @escaping @Sendable (Value) -> Void
  ) {
    self.gate = gate
    self.body = body
    self.delivery = delivery
    if case .synchronous = delivery, !serialized { lock = nil } else { lock = InternalLock() }
  }

  /// Delivers `value` now (synchronous) or posts it to the mailbox.
  @inlinable @inline(__always)
  func send(_ value: Value) {
    _ = sendReportingLive(value)
  }

  /// Delivers `value` now (synchronous) or posts it to the mailbox; returns whether the
  /// observer is still live: `false` when it was cancelled before or during the call, or its
  /// owner is gone, so that the store sweeps it out.
  @inlinable @inline(__always)
  func sendReportingLive(_ value: Value) -> Bool {
    if lock == nil { return deliver(value) }
    post(value)
    return !gate.isCancelled
  }

  /// Posts `value` to the mailbox, and schedules a drain unless one is pending.
  @usableFromInline
  func post(_ value: Value) {
    guard let lock else {
      _ = deliver(value)
      return
    }
    lock.lock()
    pending.append(value)
    let mustSchedule = !scheduled
    scheduled = true
    lock.unlock()
    if mustSchedule { schedule() }
  }

  /// Calls the observer unless its gate is cancelled; returns whether it is still live.
  @inlinable @inline(__always)
  func deliver(_ value: Value) -> Bool {
    gate.run { body(value) }
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
        for value in batch where !gate.isCancelled { _ = deliver(value) }
      }
    }
  }
}
