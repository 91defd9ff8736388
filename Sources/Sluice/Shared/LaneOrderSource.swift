/// Where a shared lane's actions go instead of being processed at once: its outbox, which
/// appends them to the log. The lane processes an action when its node applies the log entry
/// (see ``SharedLane``).
protocol LaneOrderSource: AnyObject, Sendable {
  /// Takes an action dispatched to the lane (from any thread, the lane's included); never
  /// blocks.
  func submit(_ action: any Action, file: StaticString, line: UInt)

  /// Takes an action and resumes once this node applied it (or the shared lane stopped).
  func send(_ action: any Action) async
}

extension Lane {
  /// On a shared lane, reports that `feature` is not run and returns the error; `nil` on
  /// another lane.
  func refuseOnSharedLane(_ feature: String) -> SharedLaneError? {
    guard let outbox = configuration.orderSource as? SharedOutbox else { return nil }
    let error = SharedLaneError(.localOnly(feature))
    outbox.report(error, action: nil)
    return error
  }

  /// Applies entries of a shared log, in order, each as one step (lane only): reducers,
  /// observers, and the effects of the entries with `runsEffects` (those this node dispatched
  /// since it started). An attached inspector sees each entry as a step of its own, caused by
  /// the node that sent it.
  func applyShared(_ entries: [(action: any Action, node: String, runsEffects: Bool)]) {
    for entry in entries {
      runsNoEffects = !entry.runsEffects
      if let inspector = activeInspector {
        inspector.stepStarted(
          entry.action, origin: DispatchOrigin(site: nil, cause: .log(node: entry.node)))
        processInspected(boxed: entry.action)
      } else {
        process(boxed: entry.action)
      }
    }
    runsNoEffects = false
  }
}
