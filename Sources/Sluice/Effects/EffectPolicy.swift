/// What an effect does when its action arrives while an earlier run with the same
/// ``EffectID`` is still in flight.
///
/// ```swift
/// Effects<SearchState>()
///   .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { action, context in
///     let items = try await context.dependencies.searchClient.fetch(action.text)
///     context.dispatch(ResultsLoaded(items: items))
///   }
/// ```
public struct EffectPolicy: Sendable, CustomStringConvertible {
  enum Kind: Sendable, Equatable {
    case every, latest, dropWhileRunning, debounce
  }

  let kind: Kind
  /// For a debounce: called with the store's clock when the action arrives (on the lane), it
  /// fixes the deadline and returns the wait for it, which the effect's task runs first.
  let makeDelay: (@Sendable (any Clock<Duration>) -> @Sendable () async throws -> Void)?
  private let label: String

  private init(
    _ kind: Kind, label: String,
    makeDelay: (@Sendable (any Clock<Duration>) -> @Sendable () async throws -> Void)? = nil
  ) {
    self.kind = kind
    self.label = label
    self.makeDelay = makeDelay
  }

  /// Runs the effect for every action, concurrently with earlier runs. The default.
  public static let every = EffectPolicy(.every, label: "every")

  /// Cancels the runs in flight, then starts a new one: the latest action wins (a search that
  /// restarts on each keystroke).
  public static let latest = EffectPolicy(.latest, label: "latest")

  /// Ignores the action while a run is in flight (Mini-Swift's `guard !isRunning`).
  public static let dropWhileRunning = EffectPolicy(.dropWhileRunning, label: "dropWhileRunning")

  /// Waits `duration` before running; an action arriving meanwhile cancels the wait (and a run
  /// in flight) and starts a new one. The wait is measured on the store's
  /// ``Dependencies/clock`` (the continuous clock unless the store was given another; a test
  /// gives a test clock). The deadline is fixed when the action is reduced, so a test clock
  /// advanced right after a dispatch is deterministic.
  public static func debounce(for duration: Duration) -> EffectPolicy {
    EffectPolicy(.debounce, label: "debounce(\(duration))") { clock in
      delay(for: duration, on: clock)
    }
  }

  /// Fixes the deadline `duration` from now on `clock`, and returns the wait for it.
  private static func delay<C: Clock<Duration>>(
    for duration: Duration, on clock: C
  ) -> @Sendable () async throws -> Void {
    let deadline = clock.now.advanced(by: duration)
    return {
      // A test clock may already be at the deadline, and some (swift-clocks' `TestClock`)
      // suspend a sleep until their current time until they are advanced again.
      try Task.checkCancellation()
      guard clock.now < deadline else { return }
      try await clock.sleep(until: deadline, tolerance: nil)
    }
  }

  public var description: String { label }
}
