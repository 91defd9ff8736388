import Sluice

extension Redaction {
  /// A store's state as the inspector shows it, without what this redaction marks.
  /// `unlimited` lifts the size limits (for the export's redaction checks: a truncated value
  /// could hide a redacted one).
  func encodeState(_ value: Any, unlimited: Bool = false) -> StateValue {
    encode(value, unlimited: unlimited)
  }

  /// An action as the inspector shows it; redacted whole when its type is marked.
  func encodeAction(_ action: any Action, unlimited: Bool = false) -> StateValue {
    redacts(action: type(of: action)) ? .redacted : encode(action, unlimited: unlimited)
  }

  private func encode(_ value: Any, unlimited: Bool) -> StateValue {
    StateValueEncoder().encode(
      reflecting: value, redaction: self, maxDepth: unlimited ? 64 : 48,
      maxNodes: unlimited ? .max : 200_000)
  }
}
