/// The package's one lock box: a value behind Sluice's internal lock (``InternalLock``), for
/// every module of the package (the lane keeps its own storage lock).
///
/// Nothing the user wrote may be released inside `withLock`: a body that replaces or removes
/// such a value returns the old one, so that it goes after the lock.
package final class Guarded<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = InternalLock()
  private var value: Value

  /// A box holding `value`.
  package init(_ value: Value) { self.value = value }

  /// Runs `body` with the value, under the lock.
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }
}
