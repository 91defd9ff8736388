/// One part that differs between two ``StateValue`` trees: where it sits, what it was and what
/// it is; `old` is `nil` where the part appeared, `new` where it went.
///
/// The one diff of Sluice's diagnostics: the logging middleware's `sluice.changes` and the
/// inspector's changes are both made by ``between(_:_:stoppingAt:)``.
package struct StateValueChange: Sendable, Hashable {
  /// One step into a value.
  package enum Step: Sendable, Hashable {
    /// An object's key.
    case key(String)
    /// An array's element.
    case index(Int)
  }

  /// Where the part sits, outermost step first; empty for the whole value.
  package var path: [Step]
  /// The part before; `nil` when there was none.
  package var old: StateValue?
  /// The part after; `nil` when there is none.
  package var new: StateValue?

  /// Creates a change.
  package init(path: [Step], old: StateValue?, new: StateValue?) {
    self.path = path
    self.old = old
    self.new = new
  }

  /// The path as dotted-path queries write it: `todos.3.title`; `""` for the whole value.
  package var dottedPath: String { Self.dotted(path) }

  /// `path` as dotted-path queries write it.
  package static func dotted(_ path: [Step]) -> String {
    path.map { step in
      switch step {
      case .key(let key): key
      case .index(let index): String(index)
      }
    }.joined(separator: ".")
  }

  /// The changes that turn `old` into `new`: only what differs, at the deepest path where it
  /// does (an object's key, in key order; an array's element, by index). A part whose kind
  /// changed, or at a path for which `stops` is `true`, is one change, whole. Unchanged parts
  /// are skipped after one equality check.
  package static func between(
    _ old: StateValue, _ new: StateValue, stoppingAt stops: ([Step]) -> Bool = { _ in false }
  ) -> [StateValueChange] {
    var changes: [StateValueChange] = []
    var path: [Step] = []
    collect(old, new, path: &path, stops: stops, into: &changes)
    return changes
  }

  private static func collect(
    _ old: StateValue, _ new: StateValue, path: inout [Step], stops: ([Step]) -> Bool,
    into changes: inout [StateValueChange]
  ) {
    guard old != new else { return }
    switch (old, new) {
    case (.object(let before), .object(let after)) where !stops(path):
      for key in Set(before.keys).union(after.keys).sorted() {
        path.append(.key(key))
        defer { path.removeLast() }
        switch (before[key], after[key]) {
        case (let left?, let right?):
          collect(left, right, path: &path, stops: stops, into: &changes)
        case (let left, let right):
          changes.append(StateValueChange(path: path, old: left, new: right))
        }
      }
    case (.array(let before), .array(let after)) where !stops(path):
      for index in 0..<max(before.count, after.count) {
        path.append(.index(index))
        defer { path.removeLast() }
        if index < before.count, index < after.count {
          collect(before[index], after[index], path: &path, stops: stops, into: &changes)
        } else {
          // Not `nil`: `StateValue` is `ExpressibleByNilLiteral`, and the literal would be `.null`.
          let absent = StateValue?.none
          changes.append(
            StateValueChange(
              path: path, old: index < before.count ? before[index] : absent,
              new: index < after.count ? after[index] : absent))
        }
      }
    default:
      changes.append(StateValueChange(path: path, old: old, new: new))
    }
  }
}
