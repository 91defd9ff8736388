/// A dependency that effects read from ``Dependencies``: its type names it, and its default
/// value is the one an app uses unless a store is given another (The Composable
/// Architecture's `DependencyKey`, with one value instead of live, test and preview ones).
///
/// ```swift
/// struct SearchClient: DependencyKey {
///   var fetch: @Sendable (String) async throws -> [String]
///   static let defaultValue = SearchClient(fetch: { try await liveSearch($0) })
/// }
///
/// extension Dependencies {
///   var searchClient: SearchClient {
///     get { self[SearchClient.self] }
///     set { self[SearchClient.self] = newValue }
///   }
/// }
/// ```
public protocol DependencyKey {
  /// The dependency's type.
  associatedtype Value: Sendable
  /// The value effects read when the store was given none.
  static var defaultValue: Value { get }
}

/// What a store's effects depend on — an API client, a clock, … — read by an effect as
/// ``EffectContext/dependencies``, and set per store with the `dependencies:` closure of its
/// initializer (a test store's overrides them per test).
///
/// ```swift
/// let effects = Effects<Search>()
///   .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { action, context in
///     let items = try await context.dependencies.searchClient.fetch(action.text)
///     context.dispatch(ResultsLoaded(items: items))
///   }
/// let store = Store(initialState: Search(), reducer: reducer, effects: effects)  // the defaults
/// let test = TestStore(initialState: Search(), reducer: reducer, effects: effects) {
///   $0.searchClient = SearchClient(fetch: { _ in ["swift"] })
///   $0.clock = clock  // a test clock: the debounce waits on it
/// }
/// ```
///
/// A value that was not set reads as its key's ``DependencyKey/defaultValue``. A store's
/// dependencies are fixed when it is made; each store has its own, so stores made concurrently
/// with different dependencies never see each other's. An effect keeps the dependencies it
/// started with, also after its store went.
public struct Dependencies: Sendable {
  private var values: [ObjectIdentifier: any Sendable] = [:]

  /// The defaults of every key.
  @usableFromInline init() {}

  /// The value of `key`: the one set, or its default.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
    set { values[ObjectIdentifier(key)] = newValue }
  }

  /// The clock effects wait on: ``EffectPolicy/debounce(for:)`` measures its wait on it, and an
  /// effect that sleeps or times out should too. The continuous clock by default; a test sets a
  /// test clock (swift-clocks' `TestClock`, or SluiceTesting's `ManualClock`) and advances it.
  public var clock: any Clock<Duration> {
    get { self[ClockKey.self] }
    set { self[ClockKey.self] = newValue }
  }

  /// The dependencies after `body` changed them.
  @usableFromInline
  static func made(by body: (inout Dependencies) -> Void) -> Dependencies {
    var dependencies = Dependencies()
    body(&dependencies)
    return dependencies
  }
}

/// The key of ``Dependencies/clock``.
private enum ClockKey: DependencyKey {
  static var defaultValue: any Clock<Duration> { ContinuousClock() }
}
