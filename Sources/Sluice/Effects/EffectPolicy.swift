/// What an effect does when its action arrives while an earlier run with the same
/// ``EffectID`` is still in flight.
///
/// ```swift
/// Effects<SearchState>()
///   .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { action, context in
///     context.dispatch(ResultsLoaded(items: try await api.search(action.text)))
///   }
/// ```
public struct EffectPolicy: Sendable, CustomStringConvertible {
  enum Kind: Sendable, Equatable {
    case every, latest, dropWhileRunning, debounce
  }

  let kind: Kind
  /// For a debounce: called when the action arrives (on the lane), it fixes the deadline and
  /// returns the wait for it, which the effect's task runs first.
  let makeDelay: (@Sendable () -> @Sendable () async throws -> Void)?
  private let label: String

  private init(
    _ kind: Kind, label: String,
    makeDelay: (@Sendable () -> @Sendable () async throws -> Void)? = nil
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

  /// Waits `duration` on `clock` before running; an action arriving meanwhile cancels the wait
  /// (and a run in flight) and starts a new one. The deadline is fixed when the action is
  /// reduced, so a test clock advanced right after a dispatch is deterministic.
  public static func debounce<C: Clock>(for duration: C.Duration, clock: C) -> EffectPolicy {
    EffectPolicy(.debounce, label: "debounce(\(duration))") {
      let deadline = clock.now.advanced(by: duration)
      return {
        // A test clock may already be at the deadline, and some (swift-clocks' `TestClock`)
        // suspend a sleep until their current time until they are advanced again.
        try Task.checkCancellation()
        guard clock.now < deadline else { return }
        try await clock.sleep(until: deadline, tolerance: nil)
      }
    }
  }

  /// Waits `duration` on the continuous clock before running; see
  /// ``debounce(for:clock:)``.
  public static func debounce(for duration: Duration) -> EffectPolicy {
    debounce(for: duration, clock: ContinuousClock())
  }

  public var description: String { label }
}
