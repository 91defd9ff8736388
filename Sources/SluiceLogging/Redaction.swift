/// Which parts of a state a logging middleware must never show.
///
/// A redacted part is written `<redacted>`, on both sides of a change; its values are compared
/// (to tell whether it changed) but never formatted, so they cannot reach a log record. A path
/// is redacted when it, or any path above it, is redacted: redacting `"session"` hides
/// `"session.token"` too.
///
/// ```swift
/// let middleware = Middleware<AppState>.logging(
///   to: logger, redacting: ["session.token", "users.*.password"])
/// let byName = Middleware<AppState>.logging(
///   to: logger, redacting: .matching { path in path.hasSuffix("password") })
/// ```
///
/// Paths are dotted, as in Sluice's dotted-path queries: object keys by name, array elements by
/// index (`"todos.3.title"`); the root is the empty path `""`.
public struct Redaction: Sendable, ExpressibleByArrayLiteral {
  private enum Rule: Sendable {
    case paths(exact: Set<String>, patterns: [[Substring]])
    case matching(@Sendable (String) -> Bool)
  }

  private let rules: [Rule]

  private init(rules: [Rule]) { self.rules = rules }

  /// Redacts nothing.
  public static let none = Redaction(rules: [])

  /// Redacts each of `paths` and everything under it.
  ///
  /// A segment `*` stands for any one key or index: `"users.*.password"` redacts the password of
  /// every user.
  ///
  /// ```swift
  /// let redaction = Redaction.paths(["session.token", "users.*.password"])
  /// ```
  ///
  /// - Parameter paths: Dotted paths, such as `"session.token"`.
  /// - Returns: The redaction.
  public static func paths(_ paths: some Sequence<String>) -> Redaction {
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
    return Redaction(rules: [.paths(exact: exact, patterns: patterns)])
  }

  /// Redacts every path for which `predicate` returns `true`, and everything under it.
  ///
  /// `predicate` sees dotted paths, from the top of the state down to each part that changed; it
  /// runs on the lane and must be cheap.
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

  /// Whether the part at `path` itself is redacted (paths above it are not looked at).
  ///
  /// ```swift
  /// Redaction.paths(["users.*.password"]).redacts("users.2.password")  // true
  /// ```
  ///
  /// - Parameter path: A dotted path.
  /// - Returns: `true` when a rule names `path`.
  public func redacts(_ path: String) -> Bool {
    for rule in rules {
      switch rule {
      case .paths(let exact, let patterns):
        if exact.contains(path) { return true }
        if !patterns.isEmpty {
          let segments = path.split(separator: ".", omittingEmptySubsequences: false)
          for pattern in patterns where Self.pattern(pattern, matches: segments) { return true }
        }
      case .matching(let predicate):
        if predicate(path) { return true }
      }
    }
    return false
  }

  private static func pattern(_ pattern: [Substring], matches segments: [Substring]) -> Bool {
    guard pattern.count == segments.count else { return false }
    return zip(pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
  }
}
