import Dispatch

/// A hold on a dispatcher's lane: while any lock is held, dispatched actions and transactions
/// queue — never dropped — and replay in order after the last lock is released (Flask's
/// `FluxLock`).
///
/// ```swift
/// let lock = dispatcher.pause()
/// dispatcher.dispatch(Refresh())  // queued
/// await save()
/// lock.release()                  // Refresh runs now
/// ```
///
/// ``release()`` is idempotent. A lock that nobody released is released when it is
/// deinitialized, and a lock made with a timeout releases itself when the time is up, with a
/// reported ``ReportedIssue/Kind/lockTimedOut`` issue: a forgotten lock never stalls a lane
/// silently.
///
/// Lane queries — adding an observer, counting observers — are not held by locks; actions,
/// transactions and `reset()` are.
public final class Lock: Sendable {
  /// A name for reports.
  public let label: String
  /// Whether the lock releases itself after its exclusive action when that action changed
  /// nothing.
  let autoreleases: Bool
  private let lane: Lane
  private let state = Guarded<(released: Bool, callbacks: [@Sendable () -> Void])>((false, []))

  init(lane: Lane, label: String, autoreleases: Bool) {
    self.lane = lane
    self.label = label
    self.autoreleases = autoreleases
  }

  deinit {
    release()
  }

  /// Whether the lock was released.
  public var isReleased: Bool { state.withLock { $0.released } }

  /// Calls `body` once, when the lock is released (at once if it already was), on the thread
  /// that releases it.
  public func onRelease(_ body: @escaping @Sendable () -> Void) {
    let alreadyReleased = state.withLock { state in
      if !state.released { state.callbacks.append(body) }
      return state.released
    }
    if alreadyReleased { body() }
  }

  /// Releases the lock; when it was the last one held, the queued actions replay now, in order,
  /// before `release()` returns (unless the calling thread is busy with another lane, in which
  /// case they replay on the thread that holds this one).
  public func release() {
    let callbacks: [@Sendable () -> Void]? = state.withLock { state in
      guard !state.released else { return nil }
      state.released = true
      defer { state.callbacks.removeAll() }
      return state.callbacks
    }
    guard let callbacks else { return }
    lane.unpause(ObjectIdentifier(self))
    for callback in callbacks { callback() }
  }

  /// Arms the timeout: when it passes before the lock is released, the lock is released and an
  /// issue is reported.
  ///
  /// The timeout is user input, so it is converted without trapping: zero or less releases at
  /// once; a deadline too far for a dispatch timer (2⁶² ns of uptime, about 146 years) means
  /// never, and no timer is armed.
  func arm(timeout: Duration, file: StaticString, line: UInt) {
    let limit: UInt64 = 1 << 62
    guard timeout < .nanoseconds(Int64(limit)) else { return }
    var nanoseconds: UInt64 = 0
    if timeout > .zero {
      // Below 2⁶² ns, the seconds fit in 64 bits; overflow is checked all the same.
      let (seconds, attoseconds) = timeout.components
      let (whole, wholeOverflow) = UInt64(clamping: seconds).multipliedReportingOverflow(
        by: 1_000_000_000)
      let (sum, sumOverflow) = whole.addingReportingOverflow(
        UInt64(clamping: attoseconds / 1_000_000_000))
      guard !wholeOverflow, !sumOverflow else { return }
      nanoseconds = sum
    }
    let (deadline, overflow) = DispatchTime.now().uptimeNanoseconds
      .addingReportingOverflow(nanoseconds)
    guard !overflow, deadline < limit else { return }
    let reporter = lane.reporter
    let label = self.label
    DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline)) {
      [weak self] in
      guard let self, !self.isReleased else { return }
      // Reported first, so the report comes before the replay the release causes.
      reporter.report(
        ReportedIssue(
          kind: .lockTimedOut,
          message: "the lock '\(label)' was held longer than its timeout (\(timeout)) and was "
            + "released; queued actions replay now.",
          fileID: "\(file)", line: line))
      self.release()
    }
  }
}

/// A lock the lane knows about without keeping it alive.
struct WeakLock {
  weak var lock: Lock?
}
