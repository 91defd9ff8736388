/// A key for ``LoadableMetadata``: its type is the key, `Value` the type of what it holds.
///
/// ```swift
/// enum CachedAt: LoadableMetadataKey { typealias Value = Date }
/// extension LoadableMetadata {
///   var cachedAt: Date? {
///     get { self[CachedAt.self] }
///     set { self[CachedAt.self] = newValue }
///   }
/// }
/// state.contacts.metadata.cachedAt = Date()     // Mini-Swift's `promise.date = Date()`
/// ```
public protocol LoadableMetadataKey {
  /// What the key holds: any `Sendable` value.
  associatedtype Value: Sendable
}

/// Extra facts a ``Loadable`` carries beside its status (Mini-Swift's dynamic properties on
/// `Promise` and `Task`), under typed keys.
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

  /// Whether no key has a value.
  public var isEmpty: Bool { entries.isEmpty }

  /// The value under `key`, or `nil`; assign `nil` to remove it.
  public subscript<Key: LoadableMetadataKey>(key: Key.Type) -> Key.Value? {
    get { entries[ObjectIdentifier(key)]?.value as? Key.Value }
    set {
      if let newValue {
        entries[ObjectIdentifier(key)] = Entry(value: newValue, stamp: Stamp())
      } else {
        entries.removeValue(forKey: ObjectIdentifier(key))
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
