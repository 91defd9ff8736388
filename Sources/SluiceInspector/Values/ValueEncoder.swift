import Foundation
import Sluice

/// Turns any Swift value into an ``InspectorValue`` by reflection (`Mirror`), leaving out what
/// the ``Redaction`` marks sensitive.
///
/// Reflection needs no conformance from the app's types: a state or action need not be
/// `Codable` to be shown. A value that reflects itself (`CustomReflectable`) is shown as it
/// asks. Classes are followed once per path (a cycle shows as `"‹cycle›"`), a store or a
/// dispatcher is shown by its type's name only (`"‹Store<Counter>›"`), nesting stops at
/// ``maxDepth`` and a value stops growing at ``maxNodes`` nodes (`"‹truncated›"`).
struct ValueEncoder: Sendable {
  /// What to leave out.
  var redaction: Redaction
  /// The deepest nesting shown.
  var maxDepth = 48
  /// The most nodes one value is shown with.
  var maxNodes = 200_000

  /// The value of a store's state; `storeName` is the state's type name, which ``Redaction``'s
  /// paths start with.
  func encodeState(_ value: Any, storeName: String) -> InspectorValue {
    var context = Context(nodes: 0, seen: [])
    return encode(value, path: [storeName], depth: 0, context: &context)
  }

  /// The payload of an action; redacted whole when its type is marked sensitive.
  func encodeAction(_ action: any Action) -> InspectorValue {
    if redaction.redacts(type(of: action)) { return InspectorValue.redacted }
    var context = Context(nodes: 0, seen: [])
    let path = redaction.paths.isEmpty ? [] : ["\(type(of: action))"]
    return encode(action, path: path, depth: 0, context: &context)
  }

  /// `path` one step deeper, when paths are redacted; the paths are not kept otherwise (a
  /// property name is enough to redact by key).
  private func deeper(_ path: [String], _ step: String) -> [String] {
    redaction.paths.isEmpty ? path : path + [step]
  }

  private struct Context {
    var nodes: Int
    var seen: Set<ObjectIdentifier>
  }

  private func encode(_ value: Any, path: [String], depth: Int, context: inout Context)
    -> InspectorValue
  {
    context.nodes += 1
    guard context.nodes <= maxNodes, depth <= maxDepth else { return .string("‹truncated›") }
    if let scalar = ValueEncoder.scalar(value) { return scalar }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return .null }
      return encode(wrapped, path: path, depth: depth, context: &context)
    case .collection, .set:
      var items: [InspectorValue] = []
      for child in mirror.children {
        items.append(
          encode(child.value, path: deeper(path, "[]"), depth: depth + 1, context: &context))
      }
      return .array(items)
    case .dictionary:
      var fields: [InspectorValue.Field] = []
      for child in mirror.children {
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { continue }
        let key = ValueEncoder.keyText(pair[0])
        let redacted = redaction.redacts(path: path, key: key)
        fields.append(
          InspectorValue.Field(
            key,
            redacted
              ? InspectorValue.redacted
              : encode(pair[1], path: deeper(path, key), depth: depth + 1, context: &context)))
      }
      fields.sort { $0.key < $1.key }
      return .dictionary(fields)
    case .enum:
      guard let payload = mirror.children.first else {
        return .string(ValueEncoder.caseName(value))
      }
      let name = payload.label ?? ValueEncoder.caseName(value)
      // The case's name is a key: `keys: ["token"]` redacts the payload of `case token(String)`.
      if redaction.redacts(path: path, key: name) {
        return .object([InspectorValue.Field(name, InspectorValue.redacted)])
      }
      let inner = encode(
        payload.value, path: deeper(path, name), depth: depth + 1, context: &context)
      return .object([InspectorValue.Field(name, inner)])
    case .class:
      let object = value as AnyObject
      // A store or a dispatcher in a value is named, not walked: its fields lead to the whole
      // lane (every store, the recorder's ring), thousands of nodes per action.
      if object is AnyStore || object is Dispatcher { return .string("‹\(type(of: object))›") }
      let id = ObjectIdentifier(object)
      guard !context.seen.contains(id) else { return .string("‹cycle›") }
      context.seen.insert(id)
      defer { context.seen.remove(id) }
      return fields(of: mirror, path: path, depth: depth, context: &context)
    case .struct, .tuple:
      return fields(of: mirror, path: path, depth: depth, context: &context)
    default:
      // A value that shows no structure (an opaque or foreign type): its description.
      if mirror.children.isEmpty {
        return .string(String(describing: value))
      }
      return fields(of: mirror, path: path, depth: depth, context: &context)
    }
  }

  private func fields(of mirror: Mirror, path: [String], depth: Int, context: inout Context)
    -> InspectorValue
  {
    var fields: [InspectorValue.Field] = []
    var ancestor: Mirror? = mirror
    var chain: [Mirror] = []
    while let current = ancestor {
      chain.append(current)
      ancestor = current.superclassMirror
    }
    // A class's inherited properties first, as declared.
    for current in chain.reversed() {
      for (offset, child) in current.children.enumerated() {
        let key = child.label ?? ".\(offset)"
        if redaction.redacts(path: path, key: key) {
          fields.append(InspectorValue.Field(key, InspectorValue.redacted))
        } else {
          fields.append(
            InspectorValue.Field(
              key, encode(child.value, path: deeper(path, key), depth: depth + 1, context: &context)
            ))
        }
      }
    }
    return .object(fields)
  }

  /// The value of a scalar (a number, text, a date…); `nil` for anything else. Found by the
  /// value's exact type in one table look-up, not by trying a cast per scalar type: most of
  /// what the encoder meets is not a scalar.
  private static func scalar(_ value: Any) -> InspectorValue? {
    scalars[ObjectIdentifier(type(of: value))]?(value)
  }

  private static let scalars: [ObjectIdentifier: @Sendable (Any) -> InspectorValue?] = {
    var table: [ObjectIdentifier: @Sendable (Any) -> InspectorValue?] = [:]
    func add<T>(_: T.Type, _ convert: @escaping @Sendable (T) -> InspectorValue) {
      table[ObjectIdentifier(T.self)] = { ($0 as? T).map(convert) }
    }
    add(String.self) { .string($0) }
    add(Bool.self) { .bool($0) }
    add(Int.self) { .number(Double($0)) }
    add(Double.self) { .number($0) }
    add(Int8.self) { .number(Double($0)) }
    add(Int16.self) { .number(Double($0)) }
    add(Int32.self) { .number(Double($0)) }
    add(Int64.self) { .number(Double($0)) }
    add(UInt.self) { .number(Double($0)) }
    add(UInt8.self) { .number(Double($0)) }
    add(UInt16.self) { .number(Double($0)) }
    add(UInt32.self) { .number(Double($0)) }
    add(UInt64.self) { .number(Double($0)) }
    add(Float.self) { .number(Double($0)) }
    add(Character.self) { .string(String($0)) }
    add(Substring.self) { .string(String($0)) }
    add(Date.self) { .string($0.formatted(.iso8601)) }
    add(UUID.self) { .string($0.uuidString) }
    add(URL.self) { .string($0.absoluteString) }
    add(Data.self) { .string("\($0.count) bytes") }
    add(Decimal.self) { .string("\($0)") }
    return table
  }()

  private static func keyText(_ key: Any) -> String {
    (key as? String) ?? String(describing: key)
  }

  /// An enum case's own name (not its `description`).
  private static func caseName(_ value: Any) -> String {
    enumCaseName(value) ?? String(describing: value)
  }
}
