#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reading the state from any thread, without waiting for a reducer.
///
/// A reducer changes `current` in place under `lock`: that keeps the copy-on-write buffers of
/// the state unique, so a large state is not copied per action. While it runs, the state after
/// the previous step exists nowhere else, unless the store keeps a copy of it: a store that
/// does is *mirrored*. Its `published` holds the state after the last completed step: each step
/// publishes its result before it lets `lock` go, and a reader that finds `lock` held returns
/// `published` instead of waiting.
///
/// A read:
/// 1. takes `lock` if it is free and copies `current` (the common case; a few retains);
/// 2. otherwise returns `published`, if there is one: it never waits for a reducer;
/// 3. otherwise, when a reducer holds the lock, makes the store mirrored (the running step
///    publishes its result), then: from outside any reducer, waits for the lock (the reducer
///    it waits for never blocks on a read, by the next point, so the wait ends); from inside a
///    reducer, never blocks, but retries, and breaks a cycle of such waits
///    (``StateReadWaits``) by returning the initial state with a
///    ``ReportedIssue/Kind/stateReadCycle`` issue.
///
/// So the first read that finds a store busy may wait for that one step (or, inside a cycle,
/// get the initial state); from the end of that step on, no read of the store waits. A read
/// from inside a reducer of a store on another lane makes the store mirrored even when the
/// lock is free: those are the reads that can meet in a cycle, and the store then publishes
/// from its next step on, before they meet. A read from inside the store's own reducer (or a
/// reducer nested in it on the same thread, or a deinit it triggers) is reported
/// (``ReportedIssue/Kind/stateReadInsideReducer``) and returns the published state, which is
/// the state before the running step, or the initial state when nothing is published.
///
/// Only the lane assigns `published`, at the end of a step (or a reset, a rollback, a
/// transaction) that finds the store mirrored; a reader only sets `mirrored`.
///
/// Cost: an unmirrored store pays, per step, a few stores to mark its reducer as running and
/// one flag load. A mirrored store also pays, per step, the copy of the buffers its reducer
/// changes (the published copy shares them, so the first write to each copies it), a retain,
/// and a swap of `published` under `publishedLock`. A mirrored store whose large state sits in
/// one buffer (a big dictionary that every action changes) therefore copies that buffer per
/// action. Mirroring is sticky, and only the reads above turn it on; Sluice's own reads (the
/// persistence writer) never do.
extension StoreCore {
  /// The state after the last completed step, from any thread.
  @usableFromInline
  var state: State {
    if lock.tryLock() { return readHoldingLock() }
    return readContended()
  }

  /// Whether each step publishes its result.
  var isMirrored: Bool { mirrored.load(ordering: .relaxed) != 0 }

  /// Makes the store mirrored: the running step, if any, and every later one publish.
  private func startMirroring() { mirrored.store(1, ordering: .relaxed) }

  /// Copies `current` and lets `lock` go (the caller holds it); mirrors the store when the
  /// caller is a reducer and the store is on a lane another thread may hold.
  private func readHoldingLock() -> State {
    let value = current
    lock.unlock()
    if ReducerContext.isInsideReducer, !isMirrored, !lane.isCurrentThreadDraining {
      startMirroring()
    }
    return value
  }

  /// A read that found `lock` held.
  private func readContended() -> State {
    let holder = reducingThread.load(ordering: .relaxed)
    if holder == ReducerContext.threadTag { return readInsideOwnReducer() }
    if let published = readPublished() { return published }
    if holder != 0 { startMirroring() }
    guard ReducerContext.isInsideReducer else {
      lock.lock()
      defer { lock.unlock() }
      return current
    }
    return waitInsideReducer()
  }

  /// The published state, if there is one.
  func readPublished() -> State? {
    publishedLock.lock()
    defer { publishedLock.unlock() }
    return published
  }

  /// A read from inside one of the store's own reducers, on this thread: waiting would never
  /// end.
  private func readInsideOwnReducer() -> State {
    let published = readPublished()
    lane.reporter.report(
      ReportedIssue(
        kind: .stateReadInsideReducer,
        message:
          "Store<\(State.self)>.state was read from inside one of its own reducers (or code "
          + "it calls, such as a deinit); use the state the reducer receives. "
          + (published == nil
            ? "The initial state was returned instead."
            : "The state before the running step was returned instead."),
        fileID: #fileID, line: #line))
    return published ?? initialState
  }

  /// A read from inside a reducer, of a store another thread holds, with nothing published:
  /// retries without blocking until the lock is free or a state is published, or until it
  /// must break a cycle of such waits.
  private func waitInsideReducer() -> State {
    let thread = ReducerContext.threadTag
    StateReadWaits.begin(thread: thread, target: self)
    var attempt = 0
    while true {
      if lock.tryLock() {
        let value = readHoldingLock()
        StateReadWaits.end(thread: thread)
        return value
      }
      if let published = readPublished() {
        StateReadWaits.end(thread: thread)
        return published
      }
      if reducingThread.load(ordering: .relaxed) != 0 { startMirroring() }
      if StateReadWaits.mustBreakCycle(thread) {
        StateReadWaits.end(thread: thread)
        lane.reporter.report(
          ReportedIssue(
            kind: .stateReadCycle,
            message:
              "Store<\(State.self)>.state was read from a reducer while the store's own reducer, "
              + "on another thread, was reading a store this reducer holds: a cycle. The initial "
              + "state was returned instead. The stores publish their state from their next "
              + "step on, after which this cannot happen.",
            fileID: #fileID, line: #line))
        return initialState
      }
      Self.backOff(attempt)
      attempt += 1
    }
  }

  /// Lets other threads run: yields first, then sleeps 50 µs at a time.
  private static func backOff(_ attempt: Int) {
    if attempt < 100 {
      sched_yield()
    } else {
      usleep(50)
    }
  }

  /// The state after the last completed step, for Sluice's own readers outside reducers (the
  /// persistence writer): like ``state``, except that it never makes the store mirrored; when
  /// a reducer runs and nothing is published, it waits for the step to end.
  func committedState() -> State {
    if lock.tryLock() {
      defer { lock.unlock() }
      return current
    }
    if let published = readPublished() { return published }
    if ReducerContext.isInsideReducer { return state }
    lock.lock()
    defer { lock.unlock() }
    return current
  }
}
