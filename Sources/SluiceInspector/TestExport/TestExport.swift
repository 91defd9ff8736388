/// How the inspector writes a recorded range as a Swift Testing file (the page's "Download
/// Swift test"): which modules the test imports, and how it makes each store's reducer and,
/// optionally, its effects.
///
/// ```swift
/// let export = TestExport(
///   imports: ["TodoApp"],
///   reducers: ["TodoState": "TodoFeature.reducer"],  // state type name: a Reducer expression
///   effects: ["TodoState": "TodoFeature.effects(api: .preview)"])  // an Effects expression
/// ```
///
/// The file has one `@Test` per store the range changed: a `TestStore` that starts from the
/// store's state before the range, sends each action in turn and asserts the properties it
/// changed. A store without an entry in `reducers` gets an editor placeholder to fill in.
///
/// A store with an entry in `effects` runs them in its test, as The Composable Architecture's
/// tests do: an action that an effect of an action sent earlier in the test dispatched is
/// received (`receive`, by value when the action is `Equatable`, else by type), not sent, and
/// the test ends with `finish()`, or turns exhaustivity off when the recording shows those
/// effects going on after the range. The effects must act as they did in the recording (give
/// them the same inputs, and a clock that does not wait long); an action that middleware
/// replaced, or two effects that raced each other, may need editing by hand. Without an entry,
/// the test runs no effect and sends every action the store reduced, whoever dispatched it.
public struct TestExport: Sendable {
  /// The modules the test imports with `@testable import` (the app's).
  public var imports: [String]
  /// For each state type's name, a Swift expression of type `Reducer<State>` that the test
  /// passes to `TestStore`.
  public var reducers: [String: String]
  /// For each state type's name, a Swift expression of type `Effects<State>` that the test
  /// passes to `TestStore`, which then receives what they dispatch.
  public var effects: [String: String]

  /// Creates a test export description.
  public init(
    imports: [String] = [], reducers: [String: String] = [:], effects: [String: String] = [:]
  ) {
    self.imports = imports
    self.reducers = reducers
    self.effects = effects
  }
}
