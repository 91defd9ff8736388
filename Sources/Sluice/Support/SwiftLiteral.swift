import Foundation

/// Swift source that rebuilds a value: `TodoState(items: [Todo(id: 1, title: "Milk")])`. The
/// one writer of Swift source of the package: the inspector's record → test export and
/// SluiceTesting's printed property tests use it.
///
/// It follows the value by reflection and writes a memberwise initializer for a struct, a case
/// for an enum, a literal for a collection (a set's and a dictionary's elements sorted) or a
/// scalar, `.seconds(2)` for a duration. It works for the plain value types that states and
/// actions are made of; a value it cannot write (a closure, a class instance without a
/// memberwise initializer, a type local to a function) is an error naming it. A *lenient*
/// writer names a type private to a file or local to a function by its bare name, for a test
/// pasted where the type is visible.
package struct SwiftLiteral {
  /// Why a value cannot be written.
  package struct Unwritable: Error {
    /// The value, in words.
    package let what: String
  }

  /// Whether a type a test cannot name from elsewhere is written by its bare name rather than
  /// refused.
  let lenient: Bool

  /// `value` as Swift source on one line, leniently; its description where it cannot be
  /// written.
  package static func describe(_ value: Any) -> String {
    (try? SwiftLiteral(lenient: true).write(value, depth: 0)) ?? String(describing: value)
  }

  /// The source of `value`, on one line when it fits in `width` columns after `indent`
  /// spaces, broken after each element or argument otherwise.
  package static func source(of value: Any, indent: Int = 0, width: Int = 100)
    throws(Unwritable) -> String
  {
    try SwiftLiteral(lenient: false).source(of: value, indent: indent, width: width)
  }

  /// The assignments that turn `before` into `after` in a `TestStore` assertion: one per
  /// stored property that differs (`$0.count = 2`), or the whole state (`$0 = …`) when it is
  /// not a structure of labelled properties.
  package static func assignments(
    from before: Any, to after: Any, indent: Int = 0, lenient: Bool = false
  ) throws(Unwritable) -> [String] {
    let writer = SwiftLiteral(lenient: lenient)
    let width = lenient ? Int.max : 100
    let old = Mirror(reflecting: before)
    let new = Mirror(reflecting: after)
    let labelled = new.displayStyle == .struct && new.children.allSatisfy { $0.label != nil }
    guard labelled, old.children.count == new.children.count else {
      let whole = try writer.source(of: after, indent: indent, width: width)
      return try writer.source(of: before, indent: indent, width: width) == whole
        ? [] : ["$0 = \(whole)"]
    }
    var lines: [String] = []
    for (left, right) in zip(old.children, new.children) {
      guard let label = right.label else { continue }
      let written = try writer.source(of: right.value, indent: indent, width: width)
      if try writer.source(of: left.value, indent: indent, width: width) != written {
        lines.append("$0.\(label) = \(written)")
      }
    }
    return lines
  }

  /// The type's name as a test spells it (see ``typeName(of:)``), strictly.
  package static func typeName(of value: Any) throws(Unwritable) -> String {
    try SwiftLiteral(lenient: false).typeName(of: value)
  }

  /// A value written with its type where Swift cannot infer it (an enum case passed as
  /// `any Error`): `Oops.late` rather than `.late`.
  private struct Explicit {
    let value: Any
  }

  private func source(of value: Any, indent: Int, width: Int) throws(Unwritable) -> String {
    let line = try write(value, depth: 0)
    guard indent + line.count > width else { return line }
    return try wrapped(value, indent: indent, width: width)
  }

  /// `value`'s source with its outermost list of elements or arguments one per line, each
  /// wrapped in turn when it is still too long.
  private func wrapped(_ value: Any, indent: Int, width: Int) throws(Unwritable)
    -> String
  {
    if let explicit = value as? Explicit {
      return try explicitType(of: explicit.value)
        + wrapped(explicit.value, indent: indent, width: width)
    }
    let inner = String(repeating: " ", count: indent + 2)
    let closing = String(repeating: " ", count: indent)
    func parts(_ children: some Sequence<Mirror.Child>) throws(Unwritable) -> [String] {
      var parts: [String] = []
      for child in children {
        let label = child.label.flatMap { $0.hasPrefix(".") ? nil : "\($0): " } ?? ""
        // On the argument's line when it fits after its label, else wrapped below it.
        let line = try write(child.value, depth: 0)
        let text =
          inner.count + label.count + line.count + 1 <= width
          ? line : try wrapped(child.value, indent: indent + 2, width: width)
        parts.append(inner + label + text)
      }
      return parts
    }
    if let loadable = value as? any LoadableReflecting {
      let call = try loadableCall(loadable)
      guard let arguments = call.arguments else { return call.head }
      guard !arguments.isEmpty else { return call.head + "()" }
      return call.head + "(\n" + (try parts(arguments)).joined(separator: ",\n") + "\n" + closing
        + ")"
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .collection, .set:
      guard !mirror.children.isEmpty else { return "[]" }
      let elements = try parts(mirror.children).map { $0 + "," }
      return "[\n" + elements.joined(separator: "\n") + "\n" + closing + "]"
    case .struct, .class:
      guard !mirror.children.isEmpty else { return try write(value, depth: 0) }
      let arguments = try parts(mirror.children)
      return try typeName(of: value) + "(\n" + arguments.joined(separator: ",\n") + "\n" + closing
        + ")"
    default:
      return try write(value, depth: 0)
    }
  }

  private func write(_ value: Any, depth: Int) throws(Unwritable) -> String {
    guard depth < 64 else { throw Unwritable(what: "a value nested more than 64 levels deep") }
    switch value {
    case let text as String: return Self.quoted(text)
    case let text as Substring: return Self.quoted(String(text))
    case let character as Character: return Self.quoted(String(character))
    case let flag as Bool: return flag ? "true" : "false"
    case let number as Int: return "\(number)"
    case let number as Int8: return "\(number)"
    case let number as Int16: return "\(number)"
    case let number as Int32: return "\(number)"
    case let number as Int64: return "\(number)"
    case let number as UInt: return "\(number)"
    case let number as UInt8: return "\(number)"
    case let number as UInt16: return "\(number)"
    case let number as UInt32: return "\(number)"
    case let number as UInt64: return "\(number)"
    case let number as Double: return Self.double(number)
    case let number as Float: return Self.double(Double(number))
    case let date as Date:
      return
        "Date(timeIntervalSinceReferenceDate: \(Self.double(date.timeIntervalSinceReferenceDate)))"
    case let uuid as UUID: return "UUID(uuidString: \(Self.quoted(uuid.uuidString)))!"
    case let url as URL: return "URL(string: \(Self.quoted(url.absoluteString)))!"
    case let duration as Duration: return Self.duration(duration)
    default: break
    }
    if let explicit = value as? Explicit {
      return try explicitType(of: explicit.value) + write(explicit.value, depth: depth + 1)
    }
    if let loadable = value as? any LoadableReflecting {
      let call = try loadableCall(loadable)
      guard let children = call.arguments else { return call.head }
      return call.head + "(" + (try arguments(children, depth: depth)) + ")"
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return "nil" }
      return try write(wrapped, depth: depth + 1)
    case .collection, .set:
      var items: [String] = []
      for child in mirror.children { items.append(try write(child.value, depth: depth + 1)) }
      if mirror.displayStyle == .set { items.sort() }
      return "[" + items.joined(separator: ", ") + "]"
    case .dictionary:
      var entries: [String] = []
      for child in mirror.children {
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { continue }
        entries.append(
          try write(pair[0], depth: depth + 1) + ": " + write(pair[1], depth: depth + 1))
      }
      return entries.isEmpty ? "[:]" : "[" + entries.sorted().joined(separator: ", ") + "]"
    case .enum:
      guard let name = enumCaseName(value) ?? (lenient ? "\(value)" : nil) else {
        throw Unwritable(what: "a case of \(String(reflecting: type(of: value))) without a name")
      }
      guard let payload = mirror.children.first else { return "." + name }
      let inner = Mirror(reflecting: payload.value)
      if inner.displayStyle == .tuple {
        return ".\(name)(" + (try arguments(inner.children, depth: depth)) + ")"
      }
      return ".\(name)(" + (try write(payload.value, depth: depth + 1)) + ")"
    case .struct, .class:
      return try typeName(of: value) + "(" + arguments(mirror.children, depth: depth) + ")"
    case .tuple:
      return "(" + (try arguments(mirror.children, depth: depth)) + ")"
    default:
      throw Unwritable(what: "a value of type \(String(reflecting: type(of: value)))")
    }
  }

  /// A `Loadable` as a call of its public constructors, `Loadable<Int>.loaded(3)`: its
  /// properties are private, and its timestamps take no part in its equality, so they are left
  /// out. `arguments` is `nil` for a constructor without parentheses (`.idle`).
  private func loadableCall(_ loadable: any LoadableReflecting)
    throws(Unwritable) -> (head: String, arguments: [Mirror.Child]?)
  {
    // Of the loadable itself: `value` may be an optional that holds it.
    let type = try typeName(of: loadable)
    guard !loadable.hasMetadata else {
      throw Unwritable(what: "a \(type) with metadata, which a test cannot rebuild")
    }
    switch loadable.reflectedStatus {
    case .idle:
      return ("\(type).idle", nil)
    case .loading:
      return ("\(type).loading", loadable.reflectedKept.map { [("keeping", $0)] } ?? [])
    case .loaded(let loaded):
      return ("\(type).loaded", [(nil, loaded)])
    case .failed(let error):
      guard (error.underlying as Any) is any Equatable else {
        throw Unwritable(
          what:
            "a \(type) that failed with \(String(reflecting: Swift.type(of: error.underlying))), "
            + "which is not Equatable: a test's failure would never equal it")
      }
      return (
        "\(type).failed",
        [(nil, Explicit(value: error.underlying))]
          + (loadable.reflectedKept.map { [("fallback", $0)] } ?? [])
      )
    }
  }

  /// The type an enum case needs in front of it where Swift has no type to infer; nothing for
  /// other values, which name their type.
  private func explicitType(of value: Any) throws(Unwritable) -> String {
    Mirror(reflecting: value).displayStyle == .enum ? try typeName(of: value) : ""
  }

  private func arguments(_ children: some Sequence<Mirror.Child>, depth: Int)
    throws(Unwritable) -> String
  {
    var parts: [String] = []
    for child in children {
      let text = try write(child.value, depth: depth + 1)
      if let label = child.label, !label.hasPrefix(".") {
        parts.append("\(label): \(text)")
      } else {
        parts.append(text)
      }
    }
    return parts.joined(separator: ", ")
  }

  /// The type's name as the test spells it: without module names (a module may hold a type of
  /// its own name, which would hide the module: `SluiceDemo.SluiceDemo`), nested types with
  /// their outer types; an error for a type local to a function or private to a file.
  private func typeName(of value: Any) throws(Unwritable) -> String {
    let name = String(reflecting: type(of: value))
    guard !name.contains("(unknown context"), !name.contains("(extension in") else {
      if lenient { return String(describing: type(of: value)) }
      throw Unwritable(what: "\(String(describing: type(of: value))), which a test cannot name")
    }
    return Self.withoutModules(name)
  }

  /// `Sluice.Loadable<SluiceDemo.Settings.Theme>` → `Loadable<Settings.Theme>`: every dotted
  /// path of a reflected type name starts with its module, which is dropped.
  package static func withoutModules(_ name: String) -> String {
    var output = ""
    var path = ""
    func flush() {
      let components = path.split(separator: ".", omittingEmptySubsequences: false)
      output += components.count > 1 ? components.dropFirst().joined(separator: ".") : path
      path = ""
    }
    for character in name {
      if character.isLetter || character.isNumber || character == "_" || character == "." {
        path.append(character)
      } else {
        flush()
        output.append(character)
      }
    }
    flush()
    return output
  }

  package static func quoted(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          output += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          output.unicodeScalars.append(scalar)
        }
      }
    }
    return output + "\""
  }

  /// `.seconds(2)`, `.milliseconds(300)`, or `.nanoseconds(…)`.
  private static func duration(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    if attoseconds == 0 { return ".seconds(\(seconds))" }
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let (nanoseconds, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    guard !overflow, !carry, attoseconds % 1_000_000_000 == 0 else {
      return ".init(secondsComponent: \(seconds), attosecondsComponent: \(attoseconds))"
    }
    if nanoseconds % 1_000_000 == 0 { return ".milliseconds(\(nanoseconds / 1_000_000))" }
    if nanoseconds % 1_000 == 0 { return ".microseconds(\(nanoseconds / 1_000))" }
    return ".nanoseconds(\(nanoseconds))"
  }

  private static func double(_ number: Double) -> String {
    if number.isNaN { return "Double.nan" }
    if number.isInfinite { return number < 0 ? "-Double.infinity" : "Double.infinity" }
    return "\(number)"
  }
}
