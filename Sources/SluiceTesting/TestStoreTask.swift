import Foundation
import Sluice

/// The effects an action sent to a ``TestStore`` started, to await or cancel (The Composable
/// Architecture's `TestStoreTask`).
///
/// ``TestStore/send(_:assert:fileID:filePath:line:column:)`` returns one. A long-living effect
/// (a timer, a subscription) that would fail the end-of-test check can be cancelled; one that
/// should end can be awaited:
///
/// ```swift
/// let timer = await store.send(StartTimer()) { $0.isTimerOn = true }
/// await clock.advance(by: .seconds(1))
/// await store.receive(Tick.self) { $0.seconds = 1 }
/// await timer.cancel()
/// ```
///
/// It covers the effects the action started, not those of the actions they dispatch.
public struct TestStoreTask: Sendable {
  private let effects: [EffectTask]
  private let action: String
  private let timeout: Duration
  private let cancelled = Guarded(false)

  init(effects: [EffectTask], action: String, timeout: Duration) {
    self.effects = effects
    self.action = action
    self.timeout = timeout
  }

  /// Whether ``cancel()`` was called, or every effect of the task was cancelled otherwise (by
  /// its policy, by ``TestStore/skipInFlightEffects()``, or with its store).
  public var isCancelled: Bool {
    cancelled.withLock { $0 } || (!effects.isEmpty && effects.allSatisfy(\.isCancelled))
  }

  /// Cancels the effects, and waits until they ended (up to the test store's
  /// ``TestStore/timeout``, for an effect that ignores cancellation).
  ///
  /// What they dispatch once cancelled is dropped.
  public func cancel() async {
    cancelled.withLock { $0 = true }
    for effect in effects { effect.cancel() }
    _ = await Self.waitForEnd(of: effects, within: timeout)
  }

  /// Waits until the effects ended; fails the test when some are still running after `timeout`.
  ///
  /// What they dispatched is then still to be asserted with `receive`.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait; the test store's ``TestStore/timeout`` by default.
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func finish(
    timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let timeout = timeout ?? self.timeout
    guard await !Self.waitForEnd(of: effects, within: timeout) else { return }
    recordFailure(
      "An effect started by \(action) is still running after \(timeout).",
      at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits until every effect of `effects` ended, up to `timeout` (a ``WaitBudget``); returns
  /// whether they did.
  private static func waitForEnd(of effects: [EffectTask], within timeout: Duration) async
    -> Bool
  {
    guard !effects.isEmpty else { return true }
    let ended = Guarded(false)
    // Not cancelled: it ends with the effects, which may outlive the wait.
    Task {
      for effect in effects { await effect.finish() }
      ended.withLock { $0 = true }
    }
    var budget = WaitBudget(timeout)
    while !ended.withLock({ $0 }) {
      if budget.isSpent() { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
    return true
  }
}
