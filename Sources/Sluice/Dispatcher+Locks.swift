extension Dispatcher {
  /// Pauses the lane until the returned lock is released (Flask's `Flux.lock()`).
  ///
  /// Locks are counted: the lane resumes when the last one is released. While paused,
  /// `dispatch` (sync or async) queues its action and returns at once; `send` waits for the
  /// release; transactions and `reset()` queue too. Nothing is dropped: everything replays in
  /// order after the last release.
  ///
  /// ```swift
  /// let lock = dispatcher.pause(timeout: .seconds(5))
  /// lock.onRelease { print("resumed") }
  /// ```
  ///
  /// - Parameters:
  ///   - label: A name for reports.
  ///   - timeout: When set, the lock releases itself after this long, with a reported
  ///     ``ReportedIssue/Kind/lockTimedOut`` issue.
  ///   - clock: The clock the timeout is measured on: the continuous clock by default; a test
  ///     passes a test clock (swift-clocks' `TestClock`) and advances it.
  ///   - file: The file a timeout is reported at; the caller's by default.
  ///   - line: The line a timeout is reported at; the caller's by default.
  /// - Returns: The lock; releasing it, or letting it be deinitialized, resumes the lane.
  public func pause(
    _ label: String = "pause", timeout: Duration? = nil,
    clock: some Clock<Duration> = ContinuousClock(), file: StaticString = #fileID,
    line: UInt = #line
  ) -> Lock {
    let lock = Lock(lane: lane, label: label, autoreleases: false)
    lane.pause(lock)
    if let timeout { lock.arm(timeout: timeout, clock: clock, file: file, line: line) }
    return lock
  }

  /// Runs `action` now, alone, and keeps the lane paused for everything else until the
  /// returned lock is released (Flask's `lock(withMixer:)`).
  ///
  /// Reactions caused by the action find the lock as ``Reaction/lock``, so code that finishes later — an async task seconds after — can release
  /// it. Several exclusive actions run in the order they were asked for, even while the lane is
  /// paused. Called from inside the lane, the action runs right after the current step, before
  /// anything queued.
  ///
  /// ```swift
  /// dispatcher.exclusive(Login(user: name))  // reactions release the lock when done
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action to run now.
  ///   - autorelease: Release the lock as soon as the action is processed when it changed no
  ///     store (it was not handled, a middleware dropped it, or it left every `Equatable` state
  ///     as it was), so it can never stall the lane.
  ///   - timeout: When set, the lock releases itself after this long, with a reported issue.
  ///   - clock: The clock the timeout is measured on: the continuous clock by default.
  ///   - file: The file a timeout or a misuse is reported at; the caller's by default.
  ///   - line: The line a timeout or a misuse is reported at; the caller's by default.
  /// - Returns: The lock.
  @discardableResult
  public func exclusive<A: Action>(
    _ action: A, autorelease: Bool = true, timeout: Duration? = nil,
    clock: some Clock<Duration> = ContinuousClock(), file: StaticString = #fileID,
    line: UInt = #line
  ) -> Lock {
    let lock = Lock(lane: lane, label: "exclusive \(A.self)", autoreleases: autorelease)
    if lane.refuseOnSharedLane("exclusive action") != nil {
      // Through the log as a plain action, under no lock.
      lane.dispatch(action, mode: .async, file: file, line: line)
      lock.release()
      return lock
    }
    lane.pause(lock)
    if let timeout { lock.arm(timeout: timeout, clock: clock, file: file, line: line) }
    lane.submit(
      QueuedWork(Lane.Work(kind: .action(action), lock: lock)), bypass: true, completion: .sync,
      file: file, line: line)
    return lock
  }

  /// Releases every lock held on this lane, calling each one's `onRelease` callbacks; for
  /// tests (an app releases the locks it keeps, or lets them go).
  package func removeAllLocks() {
    for lock in lane.storage.locks { lock.release() }
  }

  /// Whether a lock holds the lane; for tests.
  package var isPaused: Bool { lane.isPaused }

  /// The number of locks held; for tests.
  package var lockCount: Int { lane.lockCount }

  /// The lock of the exclusive action being processed, read from code running on the lane (an
  /// observer or reaction it caused); `nil` elsewhere. Apps read it as ``Reaction/lock``.
  package var currentLock: Lock? {
    lane.isCurrentThreadDraining ? lane.currentLock : nil
  }
}
