/// Writes a value as Swift source that makes it again, where its type allows: memberwise
/// initializers for structures, literals for strings, numbers, arrays, sets and dictionaries,
/// `.case(…)` for enumerations. For the `TestStore` tests printed by property runs.
enum SwiftLiteral {
  /// `value` as Swift source.
  static func describe(_ value: Any) -> String {
    switch value {
    case let string as String: return string.debugDescription
    case let character as Character: return String(character).debugDescription
    case let duration as Duration: return describe(duration)
    case is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16,
      is UInt32, is UInt64, is Double, is Float:
      return String(describing: value)
    default: break
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      return mirror.children.first.map { describe($0.value) } ?? "nil"
    case .collection:
      return "[" + mirror.children.map { describe($0.value) }.joined(separator: ", ") + "]"
    case .set:
      return "[" + mirror.children.map { describe($0.value) }.sorted().joined(separator: ", ")
        + "]"
    case .dictionary:
      let entries = mirror.children.map { entry -> String in
        let pair = Array(Mirror(reflecting: entry.value).children)
        guard pair.count == 2 else { return describe(entry.value) }
        return describe(pair[0].value) + ": " + describe(pair[1].value)
      }
      return entries.isEmpty ? "[:]" : "[" + entries.sorted().joined(separator: ", ") + "]"
    case .tuple:
      return "(" + arguments(mirror) + ")"
    case .enum:
      guard let payload = mirror.children.first else { return "." + String(describing: value) }
      let name = payload.label ?? String(describing: value)
      let inner = Mirror(reflecting: payload.value)
      let values = inner.displayStyle == .tuple ? arguments(inner) : describe(payload.value)
      return ".\(name)(\(values))"
    case .struct, .class:
      return "\(type(of: value))(" + arguments(mirror) + ")"
    default:
      return String(describing: value)
    }
  }

  /// The labeled values of `mirror`'s children: `id: 1, title: "a"`.
  private static func arguments(_ mirror: Mirror) -> String {
    mirror.children.map { child in
      guard let label = child.label, !label.hasPrefix(".") else { return describe(child.value) }
      return "\(label): \(describe(child.value))"
    }.joined(separator: ", ")
  }

  /// `.seconds(2)`, `.milliseconds(300)`, or `.nanoseconds(…)`.
  private static func describe(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    if attoseconds == 0 { return ".seconds(\(seconds))" }
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    if nanoseconds % 1_000_000 == 0 { return ".milliseconds(\(nanoseconds / 1_000_000))" }
    if nanoseconds % 1_000 == 0 { return ".microseconds(\(nanoseconds / 1_000))" }
    return ".nanoseconds(\(nanoseconds))"
  }

  /// The assignments that turn `before` into `after` in a `TestStore` assertion: one per
  /// stored property that differs (`$0.count = 2`), or the whole state when it is not a
  /// structure.
  static func assignments(from before: Any, to after: Any) -> [String] {
    let old = Mirror(reflecting: before)
    let new = Mirror(reflecting: after)
    guard new.displayStyle == .struct, old.children.count == new.children.count else {
      let written = describe(after)
      return written == describe(before) ? [] : ["$0 = \(written)"]
    }
    var lines: [String] = []
    for (was, now) in zip(old.children, new.children) {
      guard let label = now.label else { continue }
      let written = describe(now.value)
      if written != describe(was.value) { lines.append("$0.\(label) = \(written)") }
    }
    return lines
  }
}
