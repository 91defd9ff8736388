/// How the inspector writes a recorded range as a Swift Testing file (the page's "Download
/// Swift test"): which modules the test imports, and how it makes each store's reducer.
///
/// ```swift
/// let export = TestExport(
///   imports: ["TodoApp"],
///   reducers: ["TodoState": "TodoFeature.reducer"])  // state type name: a Reducer expression
/// ```
///
/// The file has one `@Test` per store the range changed: a `TestStore` that starts from the
/// store's state before the range, sends each action in turn and asserts the properties it
/// changed. A store without an entry in `reducers` gets an editor placeholder to fill in.
public struct TestExport: Sendable {
  /// The modules the test imports with `@testable import` (the app's).
  public var imports: [String]
  /// For each state type's name, a Swift expression of type `Reducer<State>` that the test
  /// passes to `TestStore`.
  public var reducers: [String: String]

  /// Creates a test export description.
  public init(imports: [String] = [], reducers: [String: String] = [:]) {
    self.imports = imports
    self.reducers = reducers
  }
}
