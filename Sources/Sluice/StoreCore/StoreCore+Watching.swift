// The store's watchers: everything that only watches its steps (``StepEvent``).
extension StoreCore {
  /// Sends `event` to the watchers of `kind` that are not cancelled, in registration order
  /// (lane only). A watcher registered meanwhile (by a synchronous watcher, on the lane) hears
  /// the next event.
  func tell(_ kind: StepEvent<State>.Kind, _ event: StepEvent<State>) {
    for watcher in watchers where watcher.kind == kind && !watcher.sink.gate.isCancelled {
      watcher.sink.send(event)
    }
  }

  /// Tells the watchers of ``StepEvent/changed`` that are not cancelled (lane only; from
  /// ``notify()``): their bodies are called directly, with no copy of a list, no retain and no
  /// gate (cancelling one does not wait for a call running on the lane; the persistence, their
  /// one user, closes itself before it cancels). Inlinable, so specialized for `State`: generic
  /// code would spend thousands of instructions per step looking up the watchers' metadata.
  @inlinable
  func tellChanged() {
    // Re-read at each index: a watcher may register or cancel another (lane work), and one
    // registered meanwhile hears the next event, not this one.
    let count = changeWatchers.count
    var index = 0
    while index < count, index < changeWatchers.count {
      changeWatchers[index]._withUnsafeGuaranteedRef { sink in
        if !sink.gate.isCancelled { sink.body(changedEvent) }
      }
      index += 1
    }
  }

  /// Recomputes what the hot path and the lane read of the store's middleware and watchers,
  /// after either changed (lane only, or before the store joins its lane).
  ///
  /// - Returns: Whether the lane must rebuild its routing: whether the store started or
  ///   stopped seeing every action.
  @discardableResult
  func extrasChanged() -> Bool {
    watchesActions = watchers.contains { $0.kind == .willStep }
    watchesSteps = watchers.contains { $0.kind == .stepped }
    let watchedChanges = !changeWatchers.isEmpty
    changeWatchers = watchers.compactMap { watcher in
      watcher.kind == .changed ? Unmanaged.passUnretained(watcher.sink) : nil
    }
    if changeWatchers.isEmpty == watchedChanges { registryChanged() }
    let count = middleware.count + watchers.count { $0.kind != .changed }
    return extras.exchange(count, ordering: .relaxed) != count
  }
}
