/// A timeout counted in the waiting test's own running time, for the polling loops of the test
/// store.
///
/// Each step counts the time since the step before, but at most ``maxStep``: when the machine
/// is loaded and the waiting task, like the effects it waits for, waits for a thread, the time
/// it could not run is not charged. Unloaded, a budget of one second lasts one second.
struct WaitBudget {
  /// The most a step counts.
  static let maxStep: Duration = .milliseconds(5)

  private let clock = ContinuousClock()
  private let limit: Duration
  private var last: ContinuousClock.Instant
  private var used: Duration = .zero

  /// A budget of `limit`, starting now.
  init(_ limit: Duration) {
    self.limit = limit
    last = clock.now
  }

  /// Counts the time since the last step; returns whether the budget is spent.
  mutating func isSpent() -> Bool {
    let now = clock.now
    used += min(last.duration(to: now), Self.maxStep)
    last = now
    return used >= limit
  }
}
