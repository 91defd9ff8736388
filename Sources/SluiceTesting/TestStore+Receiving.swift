import CustomDump
import Foundation
import Sluice

extension TestStore {
  /// Waits for an action of type `A` dispatched by an effect (or from inside the lane), and
  /// checks its state change.
  ///
  /// ```swift
  /// await store.receive(FactLoaded.self) { $0.fact.fill("1 is the loneliest number") }
  /// ```
  ///
  /// With exhaustivity on, it must be the next action received; off, earlier actions of other
  /// types are skipped.
  ///
  /// - Parameters:
  ///   - type: The type of the action expected.
  ///   - timeout: How long to wait while effects are running; ``timeout`` by default. When no
  ///     effect runs, it fails at once.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func receive<A: Action>(
    _ type: A.Type, timeout: Duration? = nil, assert update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard
      let record = await next(
        matching: { $0 is A }, named: "\(A.self)", timeout: timeout ?? self.timeout,
        at: location)
    else { return }
    check(record, update, what: "receiving \(A.self)", at: location)
  }

  /// Waits for `action` dispatched by an effect (or from inside the lane), and checks its state
  /// change; fails with a diff when the action received differs.
  ///
  /// ```swift
  /// await store.receive(Pong(value: 2)) { $0.results = ["pong 2"] }
  /// await store.receive(CounterAction.loaded(42)) { $0.value = 42 }
  /// ```
  ///
  /// With exhaustivity on, the next action received must be of type `A`; off, earlier actions
  /// that differ are skipped.
  ///
  /// - Parameters:
  ///   - action: The action expected.
  ///   - timeout: How long to wait while effects are running; ``timeout`` by default.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func receive<A: Action & Equatable>(
    _ action: A, timeout: Duration? = nil, assert update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let exhaustive = exhaustivity == .on
    guard
      let record = await next(
        matching: { received in
          guard let received = received as? A else { return false }
          return exhaustive || received == action
        }, named: "\(A.self)", timeout: timeout ?? self.timeout, at: location)
    else { return }
    if let received = record.action as? A, received != action {
      recordFailure(
        "The action received does not match the expectation: …\n\n"
          + (diff(action, received, format: .proportional) ?? "")
          + "\n\n(Expected: −, Received: +)",
        at: location)
    }
    check(record, update, what: "receiving \(A.self)", at: location)
  }

  /// Waits for an action of one case of an enum, named by the case, dispatched by an effect (or
  /// from inside the lane), and checks its state change.
  ///
  /// ```swift
  /// enum CounterAction: Action {
  ///   case load
  ///   case loaded(Int)
  /// }
  ///
  /// await store.receive(CounterAction.loaded) { $0.value = 42 }
  /// ```
  ///
  /// The case must have one associated value, labeled or not (a case with several can take a
  /// struct, or be
  /// received with ``receive(where:timeout:assert:fileID:filePath:line:column:)``); it is told
  /// apart by reflection, so any payload of the case matches. To check the payload too, receive
  /// the whole action by value when it is `Equatable`:
  /// `receive(CounterAction.loaded(42))`.
  ///
  /// With exhaustivity on, it must be the next action received; off, earlier actions of other
  /// cases are skipped.
  ///
  /// - Parameters:
  ///   - case: The case, as its constructor (`CounterAction.loaded`).
  ///   - timeout: How long to wait while effects are running; ``timeout`` by default.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func receive<A: Action, Value>(
    _ case: (Value) -> A, timeout: Duration? = nil,
    assert update: ((inout State) throws -> Void)? = nil, fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard
      let record = await next(
        matching: { received in
          guard let received = received as? A else { return false }
          return EnumCase.extract(`case`, from: received) != nil
        }, named: "\(A.self) of the case given", timeout: timeout ?? self.timeout,
        at: location)
    else { return }
    check(record, update, what: "receiving \(A.self)", at: location)
  }

  /// Waits for an action that satisfies `predicate`, dispatched by an effect (or from inside
  /// the lane), and checks its state change.
  ///
  /// ```swift
  /// await store.receive(where: { $0 is Pong }, assert: { $0.results = ["pong 1"] })
  /// await store.receive(where: { ($0 as? Pong)?.value ?? 0 > 1 })
  /// ```
  ///
  /// With exhaustivity on, it must be the next action received; off, earlier actions that do
  /// not satisfy the predicate are skipped.
  ///
  /// - Parameters:
  ///   - predicate: Whether an action received is the one expected.
  ///   - timeout: How long to wait while effects are running; ``timeout`` by default.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func receive(
    where predicate: (any Action) -> Bool, timeout: Duration? = nil,
    assert update: ((inout State) throws -> Void)? = nil, fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard
      let record = await next(
        matching: predicate, named: "an action satisfying the predicate",
        timeout: timeout ?? self.timeout, at: location)
    else { return }
    check(record, update, what: "receiving \(type(of: record.action))", at: location)
  }

  /// Waits for the next received record that matches (exhaustive: the next one, whatever it
  /// is); `nil` after a failure.
  private func next(
    matching matches: (any Action) -> Bool, named name: String, timeout: Duration,
    at location: TestLocation
  ) async -> Record? {
    var budget = WaitBudget(timeout)
    let exhaustive = exhaustivity == .on
    var flushed = false
    var skipped: [String] = []
    while true {
      let record = log.withLock { log -> Record? in
        log.records.removeAll(where: \.sent)
        if exhaustive {
          return log.records.isEmpty ? nil : log.records.removeFirst()
        }
        guard let index = log.records.firstIndex(where: { matches($0.action) }) else {
          skipped += log.records.map { "\(type(of: $0.action))" }
          log.records.removeAll()
          return nil
        }
        skipped += log.records[..<index].map { "\(type(of: $0.action))" }
        let record = log.records[index]
        log.records.removeFirst(index + 1)
        return record
      }
      if let record {
        guard matches(record.action) else {
          recordFailure(
            "Expected to receive \(name), but received \(type(of: record.action)):\n\n"
              + String(customDumping: record.action),
            at: location)
          return nil
        }
        await yieldToEffects()
        return record
      }
      if store.activeEffectCount == 0 {
        // Nothing runs that could dispatch: flush the lane once, then give up.
        if flushed {
          let received =
            skipped.isEmpty
            ? "no action was received"
            : "only other actions were received (\(skipped.joined(separator: ", ")))"
          recordFailure(
            "Expected to receive \(name), but \(received) and no effect is running.",
            at: location)
          return nil
        }
        await store.settle()
        flushed = true
        continue
      }
      flushed = false
      if budget.isSpent() {
        let running = store.activeEffectSources
        recordFailure(
          "Expected to receive \(name) within \(timeout), but none arrived; "
            + "\(Self.effects(running)) still running: \(Self.names(running)).",
          at: location)
        return nil
      }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}

/// Tells an enum value's case by reflection, for `TestStore.receive(CounterAction.loaded)`.
enum EnumCase {
  /// The associated value of `value` when it is of the case `embed` makes, else `nil`.
  static func extract<Root, Value>(_ embed: (Value) -> Root, from value: Root) -> Value? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum, let child = mirror.children.first,
      let payload = payload(child.value, as: Value.self)
    else { return nil }
    // Another case may carry a payload of the same type: the case must be the one `embed` makes.
    let embedded = Mirror(reflecting: embed(payload))
    guard embedded.displayStyle == .enum, embedded.children.first?.label == child.label else {
      return nil
    }
    return payload
  }

  /// `value` as a `Value`; a labeled associated value (`case loaded(count: Int)`) reflects as
  /// a one-element tuple, unwrapped here.
  private static func payload<Value>(_ value: Any, as type: Value.Type) -> Value? {
    if let value = value as? Value { return value }
    let tuple = Mirror(reflecting: value)
    guard tuple.displayStyle == .tuple, tuple.children.count == 1 else { return nil }
    return tuple.children.first?.value as? Value
  }
}
