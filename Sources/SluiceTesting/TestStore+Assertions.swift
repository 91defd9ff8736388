import CustomDump
import Sluice

extension TestStore {
  /// Checks that `update` turns the state before `record` into the state after it.
  func check(
    _ record: Record, _ update: ((inout State) throws -> Void)?, what: String,
    at location: TestLocation
  ) {
    guard let update else {
      if exhaustivity == .on, record.before != record.after {
        recordFailure(
          "State was not expected to change after \(what), but a change occurred: …\n\n"
            + (diff(record.before, record.after, format: .proportional) ?? "")
            + "\n\n(Expected: −, Actual: +)",
          at: location)
      }
      return
    }
    var expected = record.before
    do {
      try update(&expected)
    } catch {
      return recordFailure("The assertion closure threw \(error).", at: location)
    }
    if expected == record.after {
      if exhaustivity == .on, record.before == record.after {
        recordFailure(
          "Expected state to change after \(what), but no change occurred. The closure made "
            + "no observable change to the state; if none is expected, omit the closure.",
          at: location)
      }
      return
    }
    var reported = expected
    if exhaustivity == .off {
      // Only the fields the closure sets are asserted: applied to the actual state, it must
      // change nothing. The diff then shows only those fields.
      var fromActual = record.after
      do {
        try update(&fromActual)
      } catch {
        return recordFailure("The assertion closure threw \(error).", at: location)
      }
      if fromActual == record.after { return }
      reported = fromActual
    }
    recordFailure(
      "A state change does not match the expectation after \(what): …\n\n"
        + (diff(reported, record.after, format: .proportional) ?? "")
        + "\n\n(Expected: −, Actual: +)" + Self.inequalityNote(reported, record.after),
      at: location)
  }

  /// Fails when received actions are left unasserted (exhaustivity on), and forgets them.
  ///
  /// - Parameter message: Makes the message's first sentence from "N received action(s)".
  func failOnUnasserted(
    at location: TestLocation, _ message: (String) -> String
  ) {
    let left = log.withLock { log in
      defer { log.records.removeAll() }
      return log.records.filter { !$0.sent }
    }
    guard exhaustivity == .on, !left.isEmpty else { return }
    let count = "\(left.count) received action\(left.count == 1 ? "" : "s")"
    recordFailure(message(count) + ":\n\n" + Self.list(left), at: location)
  }

  static func list(_ records: [Record]) -> String {
    records.map { record in
      "  • " + String(customDumping: record.action).replacingOccurrences(of: "\n", with: "\n    ")
    }.joined(separator: "\n")
  }

  /// Explains an inequality the diff cannot show: a failed ``Loadable`` whose error is not
  /// `Equatable` equals only copies of itself, and prints like a new failure with the same
  /// error. Empty when there is nothing to explain.
  static func inequalityNote(_ expected: State, _ actual: State) -> String {
    let actualErrors = LoadErrorSearch.errors(in: actual)
    let unmatched = LoadErrorSearch.errors(in: expected).filter { error in
      !LoadErrorSearch.isEquatable(error.underlying) && !actualErrors.contains(error)
    }
    var types: [String] = []
    for error in unmatched where !types.contains("\(type(of: error.underlying))") {
      types.append("\(type(of: error.underlying))")
    }
    if let first = types.first {
      let list = types.joined(separator: ", ")
      let one = types.count == 1
      return "\n\nThe error of a failed Loadable, \(list), \(one ? "is" : "are") not "
        + "Equatable: a LoadError wrapping \(one ? "it" : "one") equals only copies of itself, "
        + "never a new failure with an equal error, even when they print the same. Make "
        + "\(list) Equatable (`extension \(first): Equatable {}`) to assert such failures."
    }
    guard String(customDumping: expected) == String(customDumping: actual) else { return "" }
    return "\n\nThe expected and actual states print the same but are not equal: a value in "
      + "the state has an == that its dump does not show (an object compared by identity, or "
      + "an == that reads a field the dump does not print)."
  }
}

/// Finds the ``LoadError``s in a value, by reflection.
enum LoadErrorSearch {
  /// Whether `value` is of an `Equatable` type.
  static func isEquatable(_ value: Any) -> Bool {
    value is any Equatable
  }

  /// The load errors in `value` and what it holds (objects visited once).
  static func errors(in value: Any) -> [LoadError] {
    var found: [LoadError] = []
    var visited: Set<ObjectIdentifier> = []
    collect(value, into: &found, visited: &visited, depth: 0)
    return found
  }

  private static func collect(
    _ value: Any, into found: inout [LoadError], visited: inout Set<ObjectIdentifier>, depth: Int
  ) {
    if let error = value as? LoadError { return found.append(error) }
    guard depth < 64 else { return }
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .class {
      guard visited.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
    }
    for child in mirror.children {
      collect(child.value, into: &found, visited: &visited, depth: depth + 1)
    }
  }
}
