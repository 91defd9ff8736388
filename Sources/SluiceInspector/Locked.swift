import Foundation

/// A value behind a lock, for the inspector's bookkeeping off the lane.
final class Locked<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) {
    stored = value
  }

  /// Runs `body` with the value, under the lock.
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&stored)
  }

  /// The value (read or replaced under the lock).
  var value: Value {
    get { withLock { $0 } }
    set { withLock { $0 = newValue } }
  }
}
