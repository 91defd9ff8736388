/// One value that changed in a store's state: where, what it was and what it is; `old` is `nil`
/// when the value appeared, `new` when it went.
public struct InspectorChange: Sendable, Hashable {
  /// Where the value sits in the state.
  public var path: InspectorPath
  /// The value before; `nil` when there was none.
  public var old: InspectorValue?
  /// The value after; `nil` when there is none.
  public var new: InspectorValue?

  /// Creates a change.
  public init(path: InspectorPath, old: InspectorValue?, new: InspectorValue?) {
    self.path = path
    self.old = old
    self.new = new
  }

  /// The changes that turn `old` into `new`: only what differs, at the deepest path where it
  /// does (a field of a struct, an element of an array, an entry of a dictionary).
  public static func between(_ old: InspectorValue, _ new: InspectorValue) -> [InspectorChange] {
    var changes: [InspectorChange] = []
    collect(old, new, at: InspectorPath(), into: &changes)
    return changes
  }

  private static func collect(
    _ old: InspectorValue, _ new: InspectorValue, at path: InspectorPath,
    into changes: inout [InspectorChange]
  ) {
    guard old != new else { return }
    switch (old, new) {
    case (.array(let before), .array(let after)):
      for index in 0..<max(before.count, after.count) {
        let next = path.appending(.index(index))
        switch (index < before.count, index < after.count) {
        case (true, true): collect(before[index], after[index], at: next, into: &changes)
        case (true, false):
          changes.append(InspectorChange(path: next, old: before[index], new: nil))
        default: changes.append(InspectorChange(path: next, old: nil, new: after[index]))
        }
      }
    case (.object(let before), .object(let after)) where sameKeys(before, after):
      for (left, right) in zip(before, after) {
        collect(left.value, right.value, at: path.appending(.key(left.key)), into: &changes)
      }
    case (.dictionary(let before), .dictionary(let after)):
      // Both sorted by key: one merge pass.
      var i = 0
      var j = 0
      while i < before.count || j < after.count {
        if j >= after.count || (i < before.count && before[i].key < after[j].key) {
          changes.append(
            InspectorChange(
              path: path.appending(.key(before[i].key)), old: before[i].value, new: nil))
          i += 1
        } else if i >= before.count || after[j].key < before[i].key {
          changes.append(
            InspectorChange(path: path.appending(.key(after[j].key)), old: nil, new: after[j].value)
          )
          j += 1
        } else {
          collect(
            before[i].value, after[j].value, at: path.appending(.key(before[i].key)),
            into: &changes)
          i += 1
          j += 1
        }
      }
    default:
      changes.append(InspectorChange(path: path, old: old, new: new))
    }
  }

  private static func sameKeys(_ left: [InspectorValue.Field], _ right: [InspectorValue.Field])
    -> Bool
  {
    left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key }
  }
}
