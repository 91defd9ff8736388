/// Reading the state from any thread; a read from inside a reducer never waits.
///
/// While a reducer changes `current` in place under `lock`, the state after the previous step
/// exists nowhere else, unless the store is *mirrored* (see ``StoreCore``): then a reader that
/// finds `lock` held returns `published` instead of waiting.
///
/// A read:
/// 1. takes `lock` if it is free and copies `current` (the common case; a few retains);
/// 2. otherwise, from the thread holding the store's lane (its reducers and observers read the
///    lane's other stores), copies `current` without the lock: that thread is the only writer,
///    and it is not writing;
/// 3. otherwise returns `published`, if there is one: it never waits for a reducer;
/// 4. otherwise, from inside a reducer, never waits: makes the store mirrored (the running
///    step publishes its result), returns the initial state and reports
///    ``ReportedIssue/Kind/stateReadCycle``, once per store (waiting there could close a cycle
///    of reducers waiting for each other);
/// 5. otherwise, from outside any reducer, makes the store mirrored when a reducer runs, and
///    waits for the lock (no reducer blocks on a read, by the points above, so the wait ends).
///
/// A read from inside a reducer of a store on another lane that finds the lock free mirrors the
/// store and publishes its state at once: from then on no read of the store from a reducer
/// gets the initial state. A read from inside the store's own reducer (or a reducer nested in
/// it on the same thread, or a deinit it triggers) is reported
/// (``ReportedIssue/Kind/stateReadInsideReducer``) and returns the published state, which is
/// the state before the running step, or the initial state when nothing is published.
///
/// Cost per step: a few stores to mark the reducer as running and one flag load; a mirrored
/// store also copies the buffers its reducer changes (the published copy shares them), retains,
/// and swaps `published` under `publishedLock`. Mirroring is sticky, and only the reads above
/// turn it on; Sluice's own reads (the persistence writer) never do.
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
  private func startMirroring() {
    _ = mirrored.compareExchange(expected: 0, desired: 1, ordering: .relaxed)
  }

  /// Copies `current` and lets `lock` go (the caller holds it); mirrors the store for a reducer
  /// of another lane (see above).
  private func readHoldingLock() -> State {
    let value = current
    guard ReducerContext.isInsideReducer, published == nil, !lane.isCurrentThreadDraining else {
      lock.unlock()
      return value
    }
    startMirroring()
    publishAndUnlock()
    return value
  }

  /// A read that found `lock` held.
  private func readContended() -> State {
    let holder = reducingThread.load(ordering: .relaxed)
    if holder == ThreadContext.currentID { return readInsideOwnReducer() }
    // The lane's thread is the only writer of `current`, and it is here, not writing.
    if lane.isCurrentThreadDraining { return current }
    if let published = readPublished() { return published }
    if ReducerContext.isInsideReducer { return readInsideBusyStore() }
    if holder != 0 { startMirroring() }
    lock.lock()
    return readHoldingLock()
  }

  /// The published state, if there is one.
  func readPublished() -> State? { publishedLock.withLock { published } }

  /// A read from inside one of the store's own reducers, on this thread (see above).
  private func readInsideOwnReducer() -> State {
    let published = readPublished()
    lane.report(
      .stateReadInsideReducer,
      "Store<\(State.self)>.state was read from inside one of its own reducers (or code "
        + "it calls, such as a deinit); use the state the reducer receives. "
        + (published == nil
          ? "The initial state was returned instead."
          : "The state before the running step was returned instead."))
    return published ?? initialState
  }

  /// Point 4 above; the first such read of the store is reported (`mirrored` becomes 2).
  private func readInsideBusyStore() -> State {
    guard mirrored.exchange(2, ordering: .relaxed) != 2 else { return initialState }
    lane.report(
      .stateReadCycle,
      "Store<\(State.self)>.state was read from a reducer while another thread held the "
        + "store (its reducer, mostly), before the store had published a state. The initial "
        + "state was returned instead of waiting (the wait could be a cycle: a deadlock). "
        + "Until its running step ends, such reads get the initial state (reported once).")
    return initialState
  }

  /// The state after the last completed step, for Sluice's own readers outside reducers (the
  /// persistence writer): like ``state``, except that it never makes the store mirrored; when
  /// a reducer runs and nothing is published, it waits for the step to end.
  func committedState() -> State {
    if !lock.tryLock() {
      if let published = readPublished() { return published }
      if ReducerContext.isInsideReducer { return state }
      lock.lock()
    }
    defer { lock.unlock() }
    return current
  }
}
