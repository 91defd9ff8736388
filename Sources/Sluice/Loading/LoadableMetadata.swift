/// Extra facts a ``Loadable`` carries beside its status (Mini-Swift's dynamic properties on
/// `Promise` and `Task`), keyed by their types: one value per type.
///
/// ```swift
/// state.contacts.metadata[Date.self] = Date()     // Mini-Swift's `promise.date = Date()`
/// let cachedAt: Date? = state.contacts.metadata[Date.self]
/// struct ExpiresAt: Sendable, Equatable { var date: Date }   // a second date: its own type
/// state.contacts.metadata[ExpiresAt.self] = ExpiresAt(date: tomorrow)
/// ```
///
/// Metadata takes part in the loadable's equality: values of an `Equatable` type compare by
/// value; others compare equal only to themselves (the same assignment, copied), so setting one
/// counts as a change.
public struct LoadableMetadata: Sendable, Equatable {
  private struct Entry: Sendable {
    let value: any Sendable
    let stamp: Stamp
  }

  private final class Stamp: Sendable {}

  private var entries: [ObjectIdentifier: Entry] = [:]

  /// Empty metadata.
  public init() {}

  /// Whether it holds no value.
  public var isEmpty: Bool { entries.isEmpty }

  /// The value of type `Value`, or `nil`; assign `nil` to remove it.
  public subscript<Value: Sendable>(type: Value.Type) -> Value? {
    get { entries[ObjectIdentifier(type)]?.value as? Value }
    set {
      if let newValue {
        entries[ObjectIdentifier(type)] = Entry(value: newValue, stamp: Stamp())
      } else {
        entries.removeValue(forKey: ObjectIdentifier(type))
      }
    }
  }

  public static func == (lhs: LoadableMetadata, rhs: LoadableMetadata) -> Bool {
    guard lhs.entries.count == rhs.entries.count else { return false }
    for (key, left) in lhs.entries {
      guard let right = rhs.entries[key] else { return false }
      if left.stamp !== right.stamp, !equalValues(left.value, right.value) { return false }
    }
    return true
  }
}
