import Sluice

/// Writes a property run as a Swift Testing test of a ``TestStore``: each step a `send`, a
/// `receive` for each action the store processed that the step did not send, or a move of the
/// clock, with the state changes asserted (the model's, when the property has one).
struct TestCodePrinter<State: Equatable & Sendable>: Sendable {
  let property: StoreProperty<State>

  func print(_ trace: PropertyTrace<State>) -> String {
    var lines: [String] = []
    let name: String
    switch trace.violation {
    case .invariant(let invariant): name = Self.identifier(invariant)
    default: name = "matchesTheModel"
    }
    lines.append("@Test func \(name)() async {")
    if property.effects.count > 0 { lines.append("  let clock = ManualClock()") }
    lines.append("  let store = \(testStoreCode)")
    for entry in trace.entries {
      switch entry.step {
      case .send: break
      case .advance(let duration):
        lines.append("  await clock.advance(by: \(SwiftLiteral.describe(duration)))")
      case .custom(_, let code, _):
        lines.append("  \(code)")
      }
      for action in entry.actions {
        let call =
          action.sent
          ? "send(\(SwiftLiteral.describe(action.action)))"
          : "receive(\(received(action.action)))"
        let changes =
          (try? SwiftLiteral.assignments(
            from: action.before, to: action.expected, lenient: true))
          ?? ["$0 = \(SwiftLiteral.describe(action.expected))"]
        if changes.isEmpty {
          lines.append("  await store.\(call)")
        } else {
          lines.append("  await store.\(call) {")
          lines += changes.map { "    \($0)" }
          lines.append("  }")
        }
      }
    }
    if case .invariant(let invariantName) = trace.violation,
      let invariant = property.invariants.first(where: { $0.name == invariantName })
    {
      if let code = invariant.code {
        lines.append("  let state = store.state")
        lines.append("  #expect(\(code))  // \(invariantName)")
      } else {
        lines.append("  // Here the invariant \"\(invariantName)\" no longer holds.")
      }
    }
    if trace.effectsLeft { lines.append("  store.skipInFlightEffects()") }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// How the printed test makes its test store.
  private var testStoreCode: String {
    if let code = property.testStoreCode { return code }
    let store = "TestStore(initialState: \(SwiftLiteral.describe(property.initialState)), "
    guard property.effects.count > 0 else { return store + "reducer: reducer)" }
    let dependencies = property.dependencies == nil ? "" : "dependencies(&$0); "
    return store + "reducer: reducer, effects: effects) { \(dependencies)$0.clock = clock }"
  }

  /// What `receive` is given: the action itself when it can be compared, its type otherwise.
  private func received(_ action: any Action) -> String {
    action is any Equatable ? SwiftLiteral.describe(action) : "\(type(of: action)).self"
  }

  /// A lower camel case identifier made of the words of `text`: "open + done == all" gives
  /// `openDoneAll`.
  static func identifier(_ text: String) -> String {
    let words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
    guard let first = words.first else { return "invariantHolds" }
    let rest = words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }
    let joined = first.prefix(1).lowercased() + first.dropFirst() + rest.joined()
    return joined.first?.isLetter == true ? joined : "invariant" + joined
  }
}
