/// Which parts of a state, or of an action, Sluice's diagnostics never show: SluiceLogging's
/// logging middleware writes them `<redacted>`, the inspector `"‹redacted›"`.
///
/// A redacted part's values are compared (to tell whether it changed) but never formatted, so
/// they cannot reach a log record or a browser. A path is redacted when it, or any path above
/// it, is redacted: redacting `"session"` hides `"session.token"` too.
///
/// Paths are dotted and start at the state (or the action): properties by their declared
/// names (even where an `Encodable` conformance calls them otherwise), dictionary keys and
/// enum cases by name, array elements by index (`"todos.3.title"`); the root is the empty path
/// `""`. A segment `*` stands for any one key or index.
///
/// ```swift
/// let middleware = Middleware<AppState>.logging(
///   to: logger, redacting: ["session.token", "users.*.password"])
/// let inspected = Inspector.Configuration(
///   redaction: .paths(["token"], in: SessionState.self)  // only in that state
///     .union(.keys(["password"]))  // a property or key of that name, anywhere
///     .union(.actions([SignIn.self])))  // the whole action
/// ```
public struct Redaction: Sendable, ExpressibleByArrayLiteral {
  private enum Rule: Sendable {
    /// Paths, in the values of one type (`nil`: any).
    case paths(exact: Set<String>, patterns: [[Substring]], in: ObjectIdentifier?)
    case keys(Set<String>)
    case matching(@Sendable (String) -> Bool)
    case actions(Set<ObjectIdentifier>)
  }

  private let rules: [Rule]

  private init(rules: [Rule]) { self.rules = rules }

  /// Redacts nothing.
  public static let none = Redaction(rules: [])

  /// Redacts each of `paths` and everything under it, in every state (and action).
  ///
  /// ```swift
  /// let redaction = Redaction.paths(["session.token", "users.*.password"])
  /// ```
  ///
  /// - Parameter paths: Dotted paths, such as `"session.token"`.
  /// - Returns: The redaction.
  public static func paths(_ paths: some Sequence<String>) -> Redaction {
    Redaction(rules: [rule(paths, in: nil)])
  }

  /// Redacts each of `paths` and everything under it, in the values of `type` only: the state
  /// of one store among several, or an action.
  ///
  /// ```swift
  /// let redaction = Redaction.paths(["token"], in: SessionState.self)
  /// ```
  ///
  /// - Parameters:
  ///   - paths: Dotted paths from the top of a `type` value, such as `"token"`.
  ///   - type: The state's (or the action's) type.
  /// - Returns: The redaction.
  public static func paths(_ paths: some Sequence<String>, in type: Any.Type) -> Redaction {
    Redaction(rules: [rule(paths, in: ObjectIdentifier(type))])
  }

  private static func rule(_ paths: some Sequence<String>, in type: ObjectIdentifier?) -> Rule {
    var exact: Set<String> = []
    var patterns: [[Substring]] = []
    for path in paths {
      let segments = path.split(separator: ".", omittingEmptySubsequences: false)
      if segments.contains("*") {
        patterns.append(segments)
      } else {
        exact.insert(path)
      }
    }
    return .paths(exact: exact, patterns: patterns, in: type)
  }

  /// Redacts every property, key or enum case named one of `keys`, wherever it is, and
  /// everything under it.
  ///
  /// ```swift
  /// let redaction = Redaction.keys(["password", "token"])
  /// ```
  ///
  /// - Parameter keys: Names, such as `"password"`.
  /// - Returns: The redaction.
  public static func keys(_ keys: some Sequence<String>) -> Redaction {
    Redaction(rules: [.keys(Set(keys))])
  }

  /// Redacts every path for which `predicate` returns `true`, and everything under it.
  ///
  /// `predicate` sees dotted paths, from the top of the state down to each part that changed
  /// (or that the inspector shows); it runs on the lane and must be cheap.
  ///
  /// ```swift
  /// let redaction = Redaction.matching { path in path.hasSuffix("token") }
  /// ```
  ///
  /// - Parameter predicate: Whether the part at a dotted path is sensitive.
  /// - Returns: The redaction.
  public static func matching(_ predicate: @escaping @Sendable (String) -> Bool) -> Redaction {
    Redaction(rules: [.matching(predicate)])
  }

  /// Redacts the whole value of the actions of `types` (the inspector shows their type only;
  /// the logging middleware never writes an action's value).
  ///
  /// - Parameter types: Action types, such as `SignIn.self`.
  /// - Returns: The redaction.
  public static func actions(_ types: [any Action.Type]) -> Redaction {
    Redaction(rules: [.actions(Set(types.map { ObjectIdentifier($0) }))])
  }

  /// Redacts each of `paths` and everything under it, as ``paths(_:)`` does.
  ///
  /// - Parameter paths: Dotted paths, such as `"session.token"`.
  public init(arrayLiteral paths: String...) {
    self = .paths(paths)
  }

  /// Redacts what this redaction or `other` redacts.
  ///
  /// ```swift
  /// let redaction = Redaction.paths(["session"]).union(.matching { $0.hasSuffix("password") })
  /// ```
  ///
  /// - Parameter other: Another redaction.
  /// - Returns: A redaction of both.
  public func union(_ other: Redaction) -> Redaction {
    Redaction(rules: rules + other.rules)
  }

  /// Whether the part at `path` itself is redacted in every value (paths above it are not
  /// looked at; nor are the paths given for one type).
  ///
  /// ```swift
  /// Redaction.paths(["users.*.password"]).redacts("users.2.password")  // true
  /// ```
  ///
  /// - Parameter path: A dotted path.
  /// - Returns: `true` when a rule names `path`.
  public func redacts(_ path: String) -> Bool {
    redacts(path, in: nil)
  }

  /// Whether the part at `path` of a value of `type` is redacted (paths above it are not
  /// looked at).
  package func redacts(_ path: String, in type: Any.Type?) -> Bool {
    let id = type.map { ObjectIdentifier($0) }
    for rule in rules {
      switch rule {
      case .paths(let exact, let patterns, let scope):
        guard scope == nil || scope == id else { continue }
        if exact.contains(path) { return true }
        if !patterns.isEmpty {
          let segments = path.split(separator: ".", omittingEmptySubsequences: false)
          for pattern in patterns where Self.pattern(pattern, matches: segments) { return true }
        }
      case .keys(let keys):
        if !keys.isEmpty, keys.contains(Self.lastSegment(of: path)) { return true }
      case .matching(let predicate):
        if predicate(path) { return true }
      case .actions:
        continue
      }
    }
    return false
  }

  /// Whether actions of `type` are redacted whole.
  package func redacts(action type: any Action.Type) -> Bool {
    let id = ObjectIdentifier(type)
    return rules.contains { rule in
      if case .actions(let types) = rule { types.contains(id) } else { false }
    }
  }

  /// Whether no rule looks at paths (only at actions): then no path needs to be made.
  package var redactsNoPath: Bool {
    rules.allSatisfy { rule in
      if case .actions = rule { true } else { false }
    }
  }

  private static func lastSegment(of path: String) -> String {
    guard let dot = path.lastIndex(of: ".") else { return path }
    return String(path[path.index(after: dot)...])
  }

  private static func pattern(_ pattern: [Substring], matches segments: [Substring]) -> Bool {
    guard pattern.count == segments.count else { return false }
    return zip(pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
  }
}
