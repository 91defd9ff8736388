/// A value before and after an action (or a transaction) changed it.
///
/// Key-path observers receive a `Change` only when the observed value really changed:
///
/// ```swift
/// let subscription = store.observe(\.counter) { change in
///   print("counter: \(change.old) → \(change.new)")
/// }
/// ```
///
/// The first delivery to a new observer, unless it opted out with
/// ``ObservationStart/nextChange``, carries the current value as both `old` and `new`.
public struct Change<Value> {
  /// The value before the action or transaction.
  public let old: Value
  /// The value after it.
  public let new: Value

  /// Creates a change.
  public init(old: Value, new: Value) {
    self.old = old
    self.new = new
  }
}

extension Change: Sendable where Value: Sendable {}
extension Change: Equatable where Value: Equatable {}
extension Change: Hashable where Value: Hashable {}
