/// A value read out of a store's state by a closure compiled with your code, for
/// ``Store/observe(_:on:from:_:)-(StateSelector<State,Value>,_,_,_)``.
///
/// ```swift
/// store.observe(.select { $0.entries[key] }) { change in … }
/// ```
///
/// Use it for values a key path would read through a subscript or a computed property: the
/// key-path runtime costs some 2,000 instructions per read, a selector about as much as the
/// code it runs. `read` runs on the lane, after each action; it must be a pure function of the
/// state.
public struct StateSelector<State, Value>: Sendable {
  /// Reads the value out of the state.
  public let read: @Sendable (State) -> Value

  /// A selector that reads with `read`.
  public init(_ read: @escaping @Sendable (State) -> Value) {
    self.read = read
  }

  /// A selector that reads with `read`: `.select { $0.items[index] }`.
  public static func select(_ read: @escaping @Sendable (State) -> Value) -> Self {
    Self(read)
  }
}
