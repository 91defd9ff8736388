// Retirement: a store core detached from the lane is released only once no drainer can follow a
// route to it. Routes hold their core unmanaged (see ``Route``), and the drainer caches them.
extension LaneStateMachine {
  /// A store's core left the lane. When no thread runs the lane, it is handed back: the caller
  /// drops the drainer's cached routes and releases it after the lock. Otherwise the machine
  /// keeps it (the shortcut stays closed, a batch stops) until the drainer replaced its cached
  /// routes (``routesReplaced()``) or lets go (``Step/stop(scheduleWorker:retired:)``).
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
