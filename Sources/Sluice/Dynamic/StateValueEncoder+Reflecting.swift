import Foundation

extension StateValue {
  /// What a redacted value is replaced with.
  package static let redacted = StateValue.string("‹redacted›")
}

extension StateValueEncoder {
  /// Turns any Swift value into a ``StateValue`` by reflection (`Mirror`), as the inspector
  /// shows states and actions and SluiceLogging's middleware compares states: no conformance
  /// is needed from the value's type.
  ///
  /// A struct, class or tuple is an object of its fields, an enum case without payload its
  /// name, one with a payload `{name: payload}`, a dictionary an object keyed by its keys'
  /// text, an array or a set an array; dates, UUIDs and URLs are text. A value that reflects
  /// itself (`CustomReflectable`) is shown as it asks. Classes are followed once per path (a
  /// cycle shows as `"‹cycle›"`), a store or a dispatcher is shown by its type's name only
  /// (`"‹Store<Counter>›"`), nesting stops at `maxDepth` and a value stops growing at
  /// `maxNodes` nodes (`"‹truncated›"`). What `redaction` redacts in a value of `value`'s type
  /// is ``StateValue/redacted``.
  package func encode(
    reflecting value: Any, redaction: Redaction = .none, maxDepth: Int = 48,
    maxNodes: Int = 200_000
  ) -> StateValue {
    var walk = ReflectionWalk(
      redaction: redaction, scope: type(of: value), maxDepth: maxDepth, maxNodes: maxNodes)
    return walk.encode(value, path: "", depth: 0)
  }
}

/// One walk of ``StateValueEncoder/encode(reflecting:redaction:maxDepth:maxNodes:)``.
private struct ReflectionWalk {
  let redaction: Redaction
  /// The type of the value walked, for the paths ``Redaction`` gives for one type.
  let scope: Any.Type
  let maxDepth: Int
  let maxNodes: Int
  /// Whether no part is redacted: then no path is made.
  let redactsNothing: Bool
  var nodes = 0
  var seen: Set<ObjectIdentifier> = []

  init(redaction: Redaction, scope: Any.Type, maxDepth: Int, maxNodes: Int) {
    self.redaction = redaction
    self.scope = scope
    self.maxDepth = maxDepth
    self.maxNodes = maxNodes
    redactsNothing = redaction.redactsNoPath
  }

  /// The dotted path of the part `segment` of the part at `path`.
  private func deeper(_ path: String, _ segment: String) -> String {
    redactsNothing ? "" : path.isEmpty ? segment : path + "." + segment
  }

  mutating func encode(_ value: Any, path: String, depth: Int) -> StateValue {
    nodes += 1
    guard nodes <= maxNodes, depth <= maxDepth else { return .string("‹truncated›") }
    if let scalar = ReflectionWalk.scalar(value) { return scalar }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return .null }
      return encode(wrapped, path: path, depth: depth)
    case .collection, .set:
      var items: [StateValue] = []
      for (index, child) in mirror.children.enumerated() {
        items.append(field(String(index), child.value, path: path, depth: depth))
      }
      return .array(items)
    case .dictionary:
      var object: [String: StateValue] = [:]
      for child in mirror.children {
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { continue }
        let key = (pair[0] as? String) ?? String(describing: pair[0])
        object[key] = field(key, pair[1], path: path, depth: depth)
      }
      return .object(object)
    case .enum:
      let name = enumCaseName(value) ?? String(describing: value)
      guard let payload = mirror.children.first else { return .string(name) }
      // The case's name is a key: redacting `token` redacts the payload of `case token(String)`.
      let key = payload.label ?? name
      return .object([key: field(key, payload.value, path: path, depth: depth)])
    case .class:
      let object = value as AnyObject
      // A store or a dispatcher in a value is named, not walked: its fields lead to the whole
      // lane (every store, the inspector's ring), thousands of nodes per action.
      if object is AnyStore || object is Dispatcher { return .string("‹\(type(of: object))›") }
      let id = ObjectIdentifier(object)
      guard seen.insert(id).inserted else { return .string("‹cycle›") }
      defer { seen.remove(id) }
      return fields(of: mirror, path: path, depth: depth)
    case .struct, .tuple:
      return fields(of: mirror, path: path, depth: depth)
    default:
      // A value that shows no structure (an opaque or foreign type): its description.
      if mirror.children.isEmpty { return .string(String(describing: value)) }
      return fields(of: mirror, path: path, depth: depth)
    }
  }

  /// The part `segment` of the part at `path`, or ``StateValue/redacted``.
  private mutating func field(_ segment: String, _ value: Any, path: String, depth: Int)
    -> StateValue
  {
    let inner = deeper(path, segment)
    if !redactsNothing, redaction.redacts(inner, in: scope) { return .redacted }
    return encode(value, path: inner, depth: depth + 1)
  }

  /// The fields of a struct, tuple or class, a class's inherited ones included.
  private mutating func fields(of mirror: Mirror, path: String, depth: Int) -> StateValue {
    var object: [String: StateValue] = [:]
    var current: Mirror? = mirror
    while let level = current {
      for (offset, child) in level.children.enumerated() {
        let key = child.label ?? ".\(offset)"
        if object[key] == nil { object[key] = field(key, child.value, path: path, depth: depth) }
      }
      current = level.superclassMirror
    }
    return .object(object)
  }

  /// The value of a scalar (a number, text, a date…); `nil` for anything else. Found by the
  /// value's exact type in one table look-up, not by trying a cast per scalar type: most of
  /// what the walk meets is not a scalar.
  private static func scalar(_ value: Any) -> StateValue? {
    scalars[ObjectIdentifier(type(of: value))]?(value)
  }

  private static let scalars: [ObjectIdentifier: @Sendable (Any) -> StateValue?] = {
    var table: [ObjectIdentifier: @Sendable (Any) -> StateValue?] = [:]
    func add<T>(_: T.Type, _ convert: @escaping @Sendable (T) -> StateValue) {
      table[ObjectIdentifier(T.self)] = { ($0 as? T).map(convert) }
    }
    add(String.self) { .string($0) }
    add(Bool.self) { .bool($0) }
    add(Int.self) { .int($0) }
    add(Int8.self) { .int(Int($0)) }
    add(Int16.self) { .int(Int($0)) }
    add(Int32.self) { .int(Int($0)) }
    add(Int64.self) { Int(exactly: $0).map(StateValue.int) ?? .double(Double($0)) }
    add(UInt.self) { Int(exactly: $0).map(StateValue.int) ?? .double(Double($0)) }
    add(UInt8.self) { .int(Int($0)) }
    add(UInt16.self) { .int(Int($0)) }
    add(UInt32.self) { Int(exactly: $0).map(StateValue.int) ?? .double(Double($0)) }
    add(UInt64.self) { Int(exactly: $0).map(StateValue.int) ?? .double(Double($0)) }
    add(Double.self) { .double($0) }
    add(Float.self) { .double(Double($0)) }
    add(Character.self) { .string(String($0)) }
    add(Substring.self) { .string(String($0)) }
    add(Date.self) { .string($0.formatted(.iso8601)) }
    add(UUID.self) { .string($0.uuidString) }
    add(URL.self) { .string($0.absoluteString) }
    add(Data.self) { .string("\($0.count) bytes") }
    add(Decimal.self) { .string("\($0)") }
    return table
  }()
}

/// The runtime's name of an enum value's case, as `print` shows it: the case's own name, even
/// when the type describes itself otherwise (`CustomStringConvertible`).
@_silgen_name("swift_EnumCaseName")
private func swiftEnumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?

/// The case name of `value` when it is an enum; `nil` otherwise, or when the runtime has no
/// name for it (stripped metadata).
package func enumCaseName(_ value: Any) -> String? {
  func open<T>(_ opened: T) -> String? {
    swiftEnumCaseName(opened).map { String(cString: $0) }
  }
  return _openExistential(value, do: open)
}
