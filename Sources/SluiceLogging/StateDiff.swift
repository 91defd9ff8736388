import Sluice

/// The changes between two states read as `StateValue`s, as `path: old → new` lines, redacted.
///
/// The changes are Sluice's one diff (`StateValueChange.between`), which does not descend
/// into a redacted part: a redacted part that changed is one change, written `<redacted>` on
/// both sides, and its values are compared but never formatted. A part whose kind changed
/// (`null` to an object, say) is one change, its values written whole with their redacted parts
/// hidden. A part that appeared or went is written `null` on the side where it is missing.
struct StateDiff {
  /// The text written for a redacted value.
  static let redacted = "<redacted>"

  /// The change lines, in path order, at most `limit` of them.
  private(set) var lines: [String] = []
  /// How many changes there were, including those past `limit`.
  private(set) var count = 0

  private let redaction: Redaction
  /// The state's type, for the paths the redaction gives for one type.
  private let scope: Any.Type

  /// Compares `old` with `new`.
  ///
  /// - Parameters:
  ///   - old: The state before, read.
  ///   - new: The state after, read.
  ///   - redaction: The parts never to show.
  ///   - scope: The state's type.
  ///   - limit: The most lines to write; further changes are only counted.
  init(
    from old: StateValue, to new: StateValue, redaction: Redaction, in scope: Any.Type,
    limit: Int
  ) {
    self.redaction = redaction
    self.scope = scope
    let changes = StateValueChange.between(old, new) {
      redaction.redacts(StateValueChange.dotted($0), in: scope)
    }
    for change in changes {
      let (old, new) = (change.old ?? .null, change.new ?? .null)
      // A key that went on one side and is `null` on the other: the same to a log.
      guard old != new else { continue }
      count += 1
      guard lines.count < limit else { continue }
      let path = change.dottedPath
      let redacted = redaction.redacts(path, in: scope)
      let before = redacted ? Self.redacted : format(old, at: path)
      let after = redacted ? Self.redacted : format(new, at: path)
      lines.append("\(path.isEmpty ? "(state)" : path): \(before) → \(after)")
    }
  }

  /// `value` written out, with its redacted parts hidden (the caller checked `path` itself).
  private func format(_ value: StateValue, at path: String) -> String {
    switch value {
    case .array(let elements):
      let parts = elements.indices.map { index in
        formatChild(elements[index], at: Self.path(path, String(index)))
      }
      return "[" + parts.joined(separator: ", ") + "]"
    case .object(let members):
      let parts = members.keys.sorted().map { key in
        "\"\(key)\": " + formatChild(members[key] ?? .null, at: Self.path(path, key))
      }
      return "{" + parts.joined(separator: ", ") + "}"
    default:
      return value.description
    }
  }

  private func formatChild(_ value: StateValue, at path: String) -> String {
    redaction.redacts(path, in: scope) ? Self.redacted : format(value, at: path)
  }

  private static func path(_ parent: String, _ segment: String) -> String {
    parent.isEmpty ? segment : parent + "." + segment
  }
}
