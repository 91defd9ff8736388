/// Names a group of effects, so that they can be cancelled together and share a policy.
///
/// Any `Hashable & Sendable` value works, and string literals convert:
///
/// ```swift
/// enum SearchEffect: Hashable { case query }
/// let effects = Effects<SearchState>()
///   .on(QueryChanged.self, policy: .latest, id: EffectID(SearchEffect.query)) { action, context in
///     let items = try await context.dependencies.searchClient.fetch(action.text)
///     context.dispatch(ResultsLoaded(items: items))
///   }
///   .cancel("search", on: SearchClosed.self)
/// ```
///
/// Ids are shared by every effect on a dispatcher: two registrations with the same id share
/// "latest wins" and "drop while running", and ``Store/cancelEffects(id:)`` stops both.
public struct EffectID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  let base: any Hashable & Sendable

  /// Wraps a value.
  public init(_ value: some Hashable & Sendable) {
    base = value
  }

  /// Creates an id from a string literal.
  public init(stringLiteral value: String) {
    base = value
  }

  public static func == (lhs: EffectID, rhs: EffectID) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  public func hash(into hasher: inout Hasher) {
    AnyHashable(base).hash(into: &hasher)
  }

  public var description: String { "\(base)" }
}
