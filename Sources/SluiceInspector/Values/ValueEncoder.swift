import Foundation
import Sluice

/// Turns any Swift value into an ``InspectorValue`` by reflection (`Mirror`), leaving out what
/// the ``Redaction`` marks sensitive.
///
/// Reflection needs no conformance from the app's types: a state or action need not be
/// `Codable` to be shown. A value that reflects itself (`CustomReflectable`) is shown as it
/// asks. Classes are followed once per path (a cycle shows as `"‹cycle›"`), nesting stops at
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
    return encode(action, path: ["\(type(of: action))"], depth: 0, context: &context)
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
        items.append(encode(child.value, path: path + ["[]"], depth: depth + 1, context: &context))
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
              : encode(pair[1], path: path + [key], depth: depth + 1, context: &context)))
      }
      fields.sort { $0.key < $1.key }
      return .dictionary(fields)
    case .enum:
      guard let payload = mirror.children.first else {
        return .string(ValueEncoder.caseName(value))
      }
      let name = payload.label ?? ValueEncoder.caseName(value)
      let inner = encode(payload.value, path: path + [name], depth: depth + 1, context: &context)
      return .object([InspectorValue.Field(name, inner)])
    case .class:
      let object = value as AnyObject
      let id = ObjectIdentifier(object)
      guard !context.seen.contains(id) else { return .string("‹cycle›") }
      context.seen.insert(id)
      defer { context.seen.remove(id) }
      return fields(of: mirror, path: path, depth: depth, context: &context)
    default:
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
              key, encode(child.value, path: path + [key], depth: depth + 1, context: &context)))
        }
      }
    }
    return .object(fields)
  }

  private static func scalar(_ value: Any) -> InspectorValue? {
    switch value {
    case let value as String: .string(value)
    case let value as Bool: .bool(value)
    case let value as Int: .number(Double(value))
    case let value as Double: .number(value)
    case let value as Int8: .number(Double(value))
    case let value as Int16: .number(Double(value))
    case let value as Int32: .number(Double(value))
    case let value as Int64: .number(Double(value))
    case let value as UInt: .number(Double(value))
    case let value as UInt8: .number(Double(value))
    case let value as UInt16: .number(Double(value))
    case let value as UInt32: .number(Double(value))
    case let value as UInt64: .number(Double(value))
    case let value as Float: .number(Double(value))
    case let value as Character: .string(String(value))
    case let value as Substring: .string(String(value))
    case let value as Date: .string(value.formatted(.iso8601))
    case let value as UUID: .string(value.uuidString)
    case let value as URL: .string(value.absoluteString)
    case let value as Data: .string("\(value.count) bytes")
    case let value as Decimal: .string("\(value)")
    default: nil
    }
  }

  private static func keyText(_ key: Any) -> String {
    (key as? String) ?? String(describing: key)
  }

  /// An enum case's own name (not its `description`).
  private static func caseName(_ value: Any) -> String {
    enumCaseName(value) ?? String(describing: value)
  }
}
