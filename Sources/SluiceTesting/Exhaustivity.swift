/// How much a ``TestStore`` insists on.
public enum Exhaustivity: Sendable, Hashable {
  /// Every state change, received action and effect must be asserted (the default), as in
  /// The Composable Architecture.
  case on
  /// Only what the test asserts is checked: a state assertion checks only the fields it sets,
  /// `receive` skips the actions before the one it names, and actions or effects left over at
  /// the end are fine.
  case off
}
