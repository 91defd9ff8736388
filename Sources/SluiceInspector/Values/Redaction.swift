import Sluice

/// What the inspector never sends: values under sensitive paths or property names, and the
/// payloads of sensitive action types. A redacted value shows as `"‹redacted›"`; the action's
/// type name still shows.
///
/// ```swift
/// let redaction = Redaction(
///   paths: ["SessionState.token"],  // a state type, then its properties
///   keys: ["password"],  // a property or dictionary key of that name, anywhere
///   actions: [SignIn.self])  // the whole payload
/// ```
public struct Redaction: Sendable {
  /// Dotted paths starting with a state or action type's name: `SessionState.token`,
  /// `SignIn.credentials.password`. Array elements are skipped: `TodoState.items.note`
  /// redacts the `note` of every item.
  public var paths: Set<String>
  /// Property names and dictionary keys redacted wherever they appear.
  public var keys: Set<String>
  /// Action types whose payload is redacted whole.
  public var actions: [any Action.Type]

  /// Creates a redaction; the default redacts nothing.
  public init(paths: Set<String> = [], keys: Set<String> = [], actions: [any Action.Type] = []) {
    self.paths = paths
    self.keys = keys
    self.actions = actions
  }

  /// Nothing is redacted.
  public static let none = Redaction()

  func redacts(_ actionType: any Action.Type) -> Bool {
    let id = ObjectIdentifier(actionType)
    return actions.contains { ObjectIdentifier($0) == id }
  }

  /// Whether the value under `key`, inside the value at `path` (type name first, `"[]"` for
  /// collection elements), is redacted.
  func redacts(path: [String], key: String) -> Bool {
    if keys.contains(key) { return true }
    guard !paths.isEmpty else { return false }
    let dotted = (path.filter { $0 != "[]" } + [key]).joined(separator: ".")
    return paths.contains(dotted)
  }
}
