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
/// deinitialized, and a lock made with a timeout releases itself when the time is up on the
/// clock given with the timeout (the continuous clock by default; a test passes a test clock),
/// with a reported ``ReportedIssue/Kind/lockTimedOut`` issue: a forgotten lock never stalls a
/// lane silently. The timeout's release never waits for the thread that holds the lane: it
/// replays the queued actions itself when the lane is free, and leaves them to that thread
/// otherwise.
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
  private let state = Guarded<State>(State())

  /// What the lock guards: whether it was released, who to call then, and the timeout's wait.
  private struct State {
    var released = false
    var callbacks: [@Sendable () -> Void] = []
    var timeout: Task<Void, Never>?
  }

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
    release(mayWait: true)
  }

  /// Releases the lock; `mayWait` false when the caller must not wait for the thread holding
  /// the lane (a timeout, on the cooperative pool): the replay then runs on the caller only
  /// when the lane is free, and on the thread that holds it otherwise.
  private func release(mayWait: Bool) {
    // Taken out under the lock, cancelled and run outside it: the wait's cancellation runs
    // the clock's code, and the callbacks are the user's.
    let taken: (callbacks: [@Sendable () -> Void], timeout: Task<Void, Never>?)? =
      state.withLock { state in
        guard !state.released else { return nil }
        state.released = true
        defer {
          state.callbacks.removeAll()
          state.timeout = nil
        }
        return (state.callbacks, state.timeout)
      }
    guard let (callbacks, timeout) = taken else { return }
    timeout?.cancel()
    lane.unpause(ObjectIdentifier(self), mayWait: mayWait)
    for callback in callbacks { callback() }
  }

  /// Arms the timeout: when `timeout` passes on `clock` before the lock is released, the lock
  /// is released and an issue is reported.
  ///
  /// The deadline is fixed now, on `clock`, so a test clock advanced right after `pause` is
  /// deterministic. The wait is a task sleeping on `clock`: it blocks no thread, holds the lock
  /// weakly (an unreleased lock still deinitializes, and releases itself), and is cancelled when
  /// the lock is released. The timeout is user input, so it is used without trapping: zero or
  /// less releases at once; a timeout of 2⁶² ns (about 146 years) or more means never, and no
  /// task is started.
  func arm<C: Clock<Duration>>(
    timeout: Duration, clock: C, file: StaticString, line: UInt
  ) {
    guard timeout < .nanoseconds(Int64(1) << 62) else { return }
    let deadline = clock.now.advanced(by: max(timeout, .zero))
    let reporter = lane.reporter
    let label = self.label
    let task = Task { [weak self] in
      // A test clock may already be at the deadline, and swift-clocks' `TestClock` suspends a
      // sleep until its current time until it is advanced again.
      if clock.now < deadline {
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
      }
      guard let self, !self.isReleased else { return }
      // Reported first, so the report comes before the replay the release causes.
      reporter.report(
        ReportedIssue(
          kind: .lockTimedOut,
          message: "the lock '\(label)' was held longer than its timeout (\(timeout)) and was "
            + "released; queued actions replay now.",
          fileID: "\(file)", line: line))
      self.release(mayWait: false)
    }
    let releasedMeanwhile = state.withLock { state in
      if !state.released { state.timeout = task }
      return state.released
    }
    if releasedMeanwhile { task.cancel() }
  }
}

/// A lock the lane's state machine holds the lane for: known by identity, not kept alive.
struct WeakLock: Hashable {
  let id: ObjectIdentifier
  weak var lock: Lock?

  static func == (lhs: WeakLock, rhs: WeakLock) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
