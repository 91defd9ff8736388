/// A reference to an object kept in a state, compared by identity (Flask's `FlaskNSRef` and
/// `FlaskRef`).
///
/// A state sometimes has to point at an object it does not own: a view, a session, a delegate.
/// `Ref` holds it strongly or weakly, and two refs are equal when they point at the same object
/// (or are both empty), so a key-path observer fires when the state starts pointing elsewhere.
///
/// `Ref` is `Codable` so that a state holding one stays `Codable`: as a property, it is left out
/// of the encoding (the key is absent), and decodes to an empty reference whether the key is
/// absent or not — an object is never persisted. Elsewhere (in an array, say) it encodes as
/// `null`.
///
/// ```swift
/// struct Screen: Equatable, Codable {
///   var presenter = Ref<Presenter>.weak(nil)
/// }
/// store.observe(\.presenter) { change in print(change.new.object as Any) }
/// ```
public struct Ref<Object: AnyObject & Sendable>: Sendable {
  private enum Storage: Sendable {
    case strong(Object?)
    case weak(WeakBox<Object>)
  }

  private let storage: Storage
  /// The identity of the object at creation; kept so equality does not change when a weak
  /// reference is cleared.
  private let identity: ObjectIdentifier?

  /// A reference that keeps `object` alive.
  public static func strong(_ object: Object?) -> Ref { Ref(storage: .strong(object), object) }

  /// A reference that does not keep `object` alive; ``object`` reads `nil` once it is gone.
  public static func weak(_ object: Object?) -> Ref { Ref(storage: .weak(WeakBox(object)), object) }

  /// An empty reference.
  public static var empty: Ref { .strong(nil) }

  private init(storage: Storage, _ object: Object?) {
    self.storage = storage
    identity = object.map(ObjectIdentifier.init)
  }

  /// The object, or `nil` when empty or when a weak reference's object is gone.
  public var object: Object? {
    switch storage {
    case .strong(let object): object
    case .weak(let box): box.object
    }
  }

  /// Whether the reference holds no object.
  public var isEmpty: Bool { object == nil }

  /// Whether the reference keeps its object alive.
  public var isWeak: Bool {
    if case .weak = storage { return true }
    return false
  }
}

extension Ref: Equatable {
  /// Two refs are equal when they were made for the same object, or are both empty.
  public static func == (lhs: Ref, rhs: Ref) -> Bool { lhs.identity == rhs.identity }
}

extension Ref: Hashable {
  public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

extension Ref: Codable {
  /// Decodes an empty reference, whatever was encoded.
  public init(from decoder: any Decoder) throws { self = .empty }

  /// Encodes `null`: an object is never persisted.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encodeNil()
  }
}

extension KeyedEncodingContainer {
  /// Leaves a `Ref` property out of the encoding: its key is absent.
  public mutating func encode<Object>(_ value: Ref<Object>, forKey key: Key) throws {}
}

extension KeyedDecodingContainer {
  /// Decodes a `Ref` property as an empty reference, whether its key is present or not.
  public func decode<Object>(_ type: Ref<Object>.Type, forKey key: Key) throws -> Ref<Object> {
    .empty
  }
}

extension Ref: CustomStringConvertible {
  public var description: String {
    guard let object else { return "Ref(empty)" }
    return "Ref(\(isWeak ? "weak" : "strong") \(type(of: object)) \(ObjectIdentifier(object)))"
  }
}

/// A weak reference in a class, so a `Ref` stays a value.
private final class WeakBox<Object: AnyObject & Sendable>: Sendable {
  weak let object: Object?
  init(_ object: Object?) { self.object = object }
}
