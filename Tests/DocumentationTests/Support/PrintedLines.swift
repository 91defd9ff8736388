import Foundation
import SluiceTestSupport

/// The lines documentation snippets printed, recorded in order from any thread, so a test can
/// check what a snippet printed.
final class PrintedLines: @unchecked Sendable {
  // @unchecked Sendable: `storage` is only touched under `lock`.
  private let lock = NSLock()
  private var storage: [String] = []

  /// Records a line.
  func append(_ line: String) { lock.withLock { storage.append(line) } }

  /// Every line since the last ``take()``.
  var lines: [String] { lock.withLock { storage } }

  /// The number of lines since the last ``take()``.
  var count: Int { lock.withLock { storage.count } }

  /// The lines since the last call, forgetting them.
  func take() -> [String] {
    lock.withLock {
      defer { storage = [] }
      return storage
    }
  }
}

/// Waits on the main actor until `condition` holds, for at most five seconds, letting main-actor
/// deliveries run in between; returns whether it held.
@MainActor func eventuallyOnMainActor(_ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + hangGuard
  while !condition() {
    guard ContinuousClock.now < deadline else { return false }
    await Task.yield()
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}
