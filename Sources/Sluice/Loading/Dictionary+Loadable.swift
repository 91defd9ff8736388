import Foundation

/// Helpers for keyed loads, `[Key: Loadable<Value>]` (Mini-Swift's keyed promises).
extension Dictionary {
  /// Starts a load for each key; keys not present yet start from idle.
  public mutating func startLoading<Element>(
    _ keys: some Sequence<Key>, at date: Date = Date()
  ) where Value == Loadable<Element> {
    for key in keys { self[key, default: .idle].start(at: date) }
  }

  /// Completes the loads of the keys in `results`; other keys are left alone.
  ///
  /// - Parameters:
  ///   - results: A result per key.
  ///   - keepingValueOnFailure: When `true` (the default) a failed key keeps its latest value.
  ///   - date: When the loads finished.
  mutating func complete<Element, Failure: Error>(
    with results: [Key: Result<Element, Failure>], keepingValueOnFailure: Bool = true,
    at date: Date = Date()
  ) where Value == Loadable<Element> {
    for (key, result) in results {
      self[key, default: .idle].complete(
        with: result, keepingValueOnFailure: keepingValueOnFailure, at: date)
    }
  }

  /// Completes the loads a keyed response carries; other keys are left alone. A failed key keeps
  /// its latest value when `keepingValueOnFailure` is `true` (the default).
  public mutating func complete<A: KeyedCompletableAction>(
    with action: A, keepingValueOnFailure: Bool = true, at date: Date = Date()
  ) where Key == A.Key, Value == Loadable<A.Payload> {
    complete(with: action.results, keepingValueOnFailure: keepingValueOnFailure, at: date)
  }

  /// The loaded values, by key (stale values of reloading or failed keys are left out).
  public func loadedValues<Element>() -> [Key: Element] where Value == Loadable<Element> {
    var loaded: [Key: Element] = [:]
    for (key, loadable) in self {
      if case .loaded(let value) = loadable.status { loaded[key] = value }
    }
    return loaded
  }
}
