import Sluice

/// The changes between two encoded states, as `path: old → new` lines, redacted.
///
/// Unchanged subtrees are skipped after one equality check, without building their paths.
/// Objects are compared key by key (in key order) and arrays index by index; a part whose kind
/// changed (`null` to an object, say) is one change, its values written whole with their
/// redacted parts hidden. Redacted values are compared but never formatted.
struct StateDiff {
  /// The text written for a redacted value.
  static let redacted = "<redacted>"

  /// The change lines, in path order, at most `limit` of them.
  private(set) var lines: [String] = []
  /// How many changes there were, including those past `limit`.
  private(set) var count = 0

  private let redaction: Redaction
  private let limit: Int

  /// Compares `old` with `new`.
  ///
  /// - Parameters:
  ///   - old: The state before, encoded.
  ///   - new: The state after, encoded.
  ///   - redaction: The parts never to show.
  ///   - limit: The most lines to write; further changes are only counted.
  init(from old: StateValue, to new: StateValue, redaction: Redaction, limit: Int) {
    self.redaction = redaction
    self.limit = limit
    walk(old, new, path: "")
  }

  private mutating func walk(_ old: StateValue, _ new: StateValue, path: String) {
    if redaction.redacts(path) {
      if old != new { append(path, old, new, redacted: true) }
      return
    }
    switch (old, new) {
    case (.object(let before), .object(let after)):
      for key in Set(before.keys).union(after.keys).sorted() {
        let old = before[key] ?? .null
        let new = after[key] ?? .null
        if old != new { walk(old, new, path: Self.path(path, key)) }
      }
    case (.array(let before), .array(let after)):
      for index in 0..<max(before.count, after.count) {
        let old = index < before.count ? before[index] : .null
        let new = index < after.count ? after[index] : .null
        if old != new { walk(old, new, path: Self.path(path, String(index))) }
      }
    default:
      if old != new { append(path, old, new, redacted: false) }
    }
  }

  /// Counts a change, and writes its line while under the limit.
  private mutating func append(_ path: String, _ old: StateValue, _ new: StateValue, redacted: Bool)
  {
    count += 1
    guard lines.count < limit else { return }
    let before = redacted ? Self.redacted : format(old, at: path)
    let after = redacted ? Self.redacted : format(new, at: path)
    lines.append("\(path.isEmpty ? "(state)" : path): \(before) → \(after)")
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
    redaction.redacts(path) ? Self.redacted : format(value, at: path)
  }

  private static func path(_ parent: String, _ segment: String) -> String {
    parent.isEmpty ? segment : parent + "." + segment
  }
}
