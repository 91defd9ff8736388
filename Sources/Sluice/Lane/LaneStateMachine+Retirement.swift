// Retirement: a store core detached from the lane is released only once no drainer can follow a
// route to it. Routes hold their core unmanaged (see ``Route``), and the drainer caches them.
extension LaneStateMachine {
  /// A store's core left the lane: handed back when no thread runs the lane (the caller drops the
  /// cached routes, releases it after the lock); otherwise kept (shortcut closed, batch stopped)
  /// until the drainer replaced its routes (``routesReplaced()``) or lets go
  /// (``Step/stop(scheduleWorker:retired:)``).
  mutating func retire(_ retiree: Retiree) -> Retiree? {
    if canClaim { return retiree }
    retired.append(retiree)
    stopBatch()
    return nil
  }

  /// The drainer replaced the routes it cached with the lane's current ones, before following
  /// any: the cores retired until then are handed back, for release after the lock.
  mutating func routesReplaced() -> [Retiree] {
    guard !retired.isEmpty else { return [] }
    defer { retired = [] }
    return retired
  }

  /// The drainer lets go: it drops the routes it cached, so what was retired goes with it.
  mutating func letGo(scheduleWorker: Bool) -> Step {
    .stop(scheduleWorker: scheduleWorker, retired: routesReplaced())
  }
}
