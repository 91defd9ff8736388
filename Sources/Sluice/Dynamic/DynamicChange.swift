import Foundation

/// A change at a dotted path of a store's `Codable` state, as a reaction reports it.
///
/// ```swift
/// reaction.on("info.nest.foo") { change in
///   print(change.path, change.old, change.new)         // info.nest.foo 1 2
///   let count: Int? = change.new(as: Int.self)
/// }
/// ```
public struct DynamicChange: Sendable {
  /// The dotted path, as queried.
  public let path: String
  /// The store whose state changed.
  public let store: AnyStore
  /// The value before the change (``StateValue/null`` when absent).
  public let old: StateValue
  /// The value after the change.
  public let new: StateValue

  /// The old value decoded as `type`, or `nil` when it is not one.
  public func old<T: Decodable>(as type: T.Type) -> T? { old.decoded(as: type) }

  /// The new value decoded as `type`, or `nil` when it is not one.
  public func new<T: Decodable>(as type: T.Type) -> T? { new.decoded(as: type) }
}

extension StateValue {
  /// This value decoded as `type`, or `nil` when it does not decode.
  public func decoded<T: Decodable>(as type: T.Type) -> T? {
    // A JSON round trip keeps the decoding rules of `JSONDecoder`, which users know.
    guard let data = try? JSONEncoder().encode(self) else { return nil }
    return try? JSONDecoder().decode(T.self, from: data)
  }
}
