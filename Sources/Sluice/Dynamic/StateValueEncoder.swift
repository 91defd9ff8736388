/// Encodes any `Encodable` value straight into a ``StateValue`` tree, without a JSON round trip,
/// named as the value's `encode(to:)` names its parts.
///
/// This is the tree dotted-path queries read: their paths follow the state's `Encodable`
/// conformance (renamed keys, custom encodings, dictionaries whose keys appear later). Sluice's
/// diagnostics (the inspector, SluiceLogging's middleware) read a value the other way this
/// encoder has, by reflection: any value, no conformance needed, by its declared properties,
/// with cycles cut, size limits, and redaction on the way, so that one `Redaction` path names
/// the same part in a log and in the inspector.
///
/// ```swift
/// let tree = try StateValueEncoder().encode(appState)
/// print(tree[path: "info.nest.foo"])
/// ```
public struct StateValueEncoder: Sendable {
  /// Whether to mark open containers (costs a type-name check per keyed container).
  var marksOpenContainers = false

  /// Creates an encoder.
  public init() {}

  /// Encodes `value`.
  ///
  /// - Throws: Whatever `value`'s `encode(to:)` throws.
  public func encode(_ value: some Encodable) throws -> StateValue {
    let root = EncodingBox()
    try root.store(value, options: self, codingPath: [])
    return root.resolved
  }

  /// Encodes `value` and returns, beside the tree, the dotted paths of its *open* containers:
  /// dictionaries and `StateValue`s, whose keys can appear later (`""` is the root).
  func encodeMarkingOpen(_ value: some Encodable) throws -> (StateValue, Set<String>) {
    var options = self
    options.marksOpenContainers = true
    let root = EncodingBox()
    try root.store(value, options: options, codingPath: [])
    var open: Set<String> = []
    root.collectOpen(prefix: "", into: &open)
    return (root.resolved, open)
  }
}

/// A node of the tree being encoded: a finished value, or an object or array still being filled.
private final class EncodingBox {
  var value: StateValue = .null
  var object: [String: EncodingBox]?
  var array: [EncodingBox]?
  /// A dictionary or a `StateValue`: keys may appear in it later.
  var isOpen = false

  func collectOpen(prefix: String, into open: inout Set<String>) {
    if isOpen {
      open.insert(prefix)
      return
    }
    func join(_ segment: String) -> String { prefix.isEmpty ? segment : prefix + "." + segment }
    for (key, child) in object ?? [:] { child.collectOpen(prefix: join(key), into: &open) }
    for (index, child) in (array ?? []).enumerated() {
      child.collectOpen(prefix: join(String(index)), into: &open)
    }
  }

  var resolved: StateValue {
    if let object { return .object(object.mapValues(\.resolved)) }
    if let array { return .array(array.map(\.resolved)) }
    return value
  }

  func store(_ encodable: some Encodable, options: StateValueEncoder, codingPath: [any CodingKey])
    throws
  {
    if let primitive = StateValue(primitive: encodable) {
      value = primitive
      if encodable is StateValue { isOpen = true }
    } else {
      try encodable.encode(
        to: TreeEncoder(box: self, options: options, codingPath: codingPath))
    }
  }

  func child(_ key: String) -> EncodingBox {
    if object == nil { object = [:] }
    if let existing = object?[key] { return existing }
    let box = EncodingBox()
    object?[key] = box
    return box
  }

  func appended() -> EncodingBox {
    if array == nil { array = [] }
    let box = EncodingBox()
    array?.append(box)
    return box
  }
}

extension StateValue {
  /// The value of a primitive (or of a `StateValue`), or `nil` for a value that encodes itself.
  fileprivate init?(primitive: some Encodable) {
    switch primitive {
    case let value as StateValue: self = value
    case let value as Bool: self = .bool(value)
    case let value as String: self = .string(value)
    case let value as Int: self = .int(value)
    case let value as Int8: self = .int(Int(value))
    case let value as Int16: self = .int(Int(value))
    case let value as Int32: self = .int(Int(value))
    case let value as Int64: self = .int(Int(value))
    case let value as UInt: self = Int(exactly: value).map(StateValue.int) ?? .double(Double(value))
    case let value as UInt8: self = .int(Int(value))
    case let value as UInt16: self = .int(Int(value))
    case let value as UInt32: self = .int(Int(value))
    case let value as UInt64:
      self = Int(exactly: value).map(StateValue.int) ?? .double(Double(value))
    case let value as Double: self = .double(value)
    case let value as Float: self = .double(Double(value))
    default: return nil
    }
  }
}

private struct TreeEncoder: Encoder {
  let box: EncodingBox
  let options: StateValueEncoder
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if box.object == nil { box.object = [:] }
    // `Dictionary` encodes through its private `_DictionaryCodingKey`: its keys are data.
    if options.marksOpenContainers, "\(Key.self)".contains("DictionaryCodingKey") {
      box.isOpen = true
    }
    return KeyedEncodingContainer(KeyedTreeContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if box.array == nil { box.array = [] }
    return UnkeyedTreeContainer(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleTreeContainer(encoder: self)
  }
}

private struct KeyedTreeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: TreeEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil(forKey key: Key) throws {
    encoder.box.child(key.stringValue).value = .null
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try encoder.box.child(key.stringValue).store(
      value, options: encoder.options, codingPath: codingPath + [key])
  }

  // A `nil` optional is written as `null`, not left out, so its path is known to exist.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    try put(value, key)
  }

  private mutating func put<T: Encodable>(_ value: T?, _ key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let child = encoder.box.child(key.stringValue)
    return TreeEncoder(box: child, options: encoder.options, codingPath: codingPath + [key])
      .container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = encoder.box.child(key.stringValue)
    return TreeEncoder(box: child, options: encoder.options, codingPath: codingPath + [key])
      .unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(box: encoder.box.child("super"), options: encoder.options, codingPath: codingPath)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let child = encoder.box.child(key.stringValue)
    return TreeEncoder(box: child, options: encoder.options, codingPath: codingPath + [key])
  }
}

private struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedTreeContainer: UnkeyedEncodingContainer {
  let encoder: TreeEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int { encoder.box.array?.count ?? 0 }

  mutating func encodeNil() throws { encoder.box.appended().value = .null }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let key = IndexKey(count)
    try encoder.box.appended().store(
      value, options: encoder.options, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let key = IndexKey(count)
    return TreeEncoder(
      box: encoder.box.appended(), options: encoder.options, codingPath: codingPath + [key]
    ).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let key = IndexKey(count)
    return TreeEncoder(
      box: encoder.box.appended(), options: encoder.options, codingPath: codingPath + [key]
    ).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(box: encoder.box.appended(), options: encoder.options, codingPath: codingPath)
  }
}

private struct SingleTreeContainer: SingleValueEncodingContainer {
  let encoder: TreeEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil() throws { encoder.box.value = .null }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try encoder.box.store(value, options: encoder.options, codingPath: codingPath)
  }
}
