import CustomDump
import Foundation
import Sluice

/// A store for tests: every state change, every action effects dispatch and every effect must
/// be asserted (The Composable Architecture's `TestStore`, on Linux too; with Swift Testing or
/// XCTest).
///
/// ```swift
/// @Test func loadsCounter() async {
///   let store = TestStore(initialState: Counter(), reducer: reducer, effects: effects)
///   await store.send(LoadCounter()) { $0.value.start() }
///   await store.receive(CounterLoaded.self) { $0.value = .loaded(42) }
/// }   // fails if an action or an effect is left unasserted
/// ```
///
/// - ``send(_:assert:fileID:filePath:line:column:)`` dispatches an action, waits until it was
///   processed, and checks the state change: the closure gets the state before the action and
///   must turn it into exactly the state after.
/// - ``receive(_:timeout:assert:fileID:filePath:line:column:)-(A.Type,_,_,_,_,_,_)`` waits for an
///   action that an effect (or a reducer, middleware or observer) dispatched, and checks its state
///   change.
/// - ``finish(timeout:fileID:filePath:line:column:)`` waits for the effects to end; at its
///   deinitialization the store fails the test for actions and effects left over.
///
/// Failures are reported through IssueReporting, where the assertion was written, with a
/// readable diff of the expected and actual states. Set ``exhaustivity`` to
/// ``Exhaustivity/off`` to assert only what matters to a test.
public final class TestStore<State: Equatable & Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `exhaustivity` and `timeout` are meant to be set by the test before
  // use; everything else is immutable or behind `log`'s lock.
  struct Record {
    let action: any Action
    let before: State
    let after: State
    let sent: Bool
  }

  struct Log {
    var records: [Record] = []
    var sending = false
  }

  /// The store under test.
  public let store: Store<State>
  /// How much the store insists on; ``Exhaustivity/on`` by default.
  public var exhaustivity: Exhaustivity = .on
  /// How long the `receive` methods and ``finish(timeout:fileID:filePath:line:column:)`` wait
  /// by default.
  public var timeout: Duration = .seconds(5)

  private let log = Locked(Log())
  private var recording: Subscription?
  private let location: TestLocation

  /// A test store over a new store (on its own dispatcher unless one is given).
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      Store(
        initialState: initialState, dispatcher: dispatcher, reducer: reducer,
        middleware: middleware, effects: effects),
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// A test store over an existing store; it sees the actions processed from now on.
  public init(
    _ store: Store<State>, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.store = store
    location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let log = self.log
    recording = store.record { step in
      log.withLock { log in
        // On a shared dispatcher, the actions of the other stores are theirs to assert.
        if step.handledElsewhere, !log.sending { return }
        log.records.append(
          Record(action: step.action, before: step.before, after: step.after, sent: log.sending))
      }
    }
  }

  deinit {
    recording?.cancel()
    if exhaustivity == .on {
      let left = log.withLock { $0.records.filter { !$0.sent } }
      if !left.isEmpty {
        recordFailure(
          "The store received \(left.count) unexpected action\(left.count == 1 ? "" : "s"):\n\n"
            + Self.list(left) + "\n\nAssert them with receive(_:), or call "
            + "skipReceivedActions().",
          at: location)
      }
      let running = Self.activeEffects(of: store)
      if running > 0 {
        recordFailure(
          "\(running) effect\(running == 1 ? " is" : "s are") still running. Await finish() to "
            + "let them end, or call skipInFlightEffects().",
          at: location)
      }
    }
    store.cancelAllEffects()
  }

  /// The store's current state.
  public var state: State { store.state }

  /// The effects still running (not cancelled), after letting those that are finishing end.
  ///
  /// An effect whose last dispatch was just received may still be returning from it; deinit
  /// cannot await, so it gives such effects up to 250 ms before it counts them.
  private static func activeEffects(of store: Store<State>) -> Int {
    var waited = 0
    while store.activeEffectCount > 0, waited < 250 {
      usleep(1_000)
      waited += 1
    }
    return store.activeEffectCount
  }

  // MARK: - Sending

  /// Dispatches `action`, waits until it (and everything it caused synchronously) was
  /// processed, and checks the state change.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func send<A: Action>(
    _ action: A, assert update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    failOnUnasserted(at: location) { "Must handle \($0) before sending an action" }
    await store.sendMarked(action) { [log] inside in log.withLock { $0.sending = inside } }
    let (early, sent) = log.withLock { log -> ([Record], Record?) in
      guard let index = log.records.firstIndex(where: \.sent) else { return ([], nil) }
      let early = Array(log.records[..<index])
      let sent = log.records[index]
      log.records.removeFirst(index + 1)
      return (early, sent)
    }
    if exhaustivity == .on, !early.isEmpty {
      recordFailure(
        "The store received \(early.count) action\(early.count == 1 ? "" : "s") before "
          + "\(A.self) was processed; assert them before sending:\n\n" + Self.list(early),
        at: location)
    }
    guard let sent else {
      return recordFailure("\(A.self) was not processed by the store.", at: location)
    }
    check(sent, update, what: "sending \(A.self)", at: location)
  }

  // MARK: - Receiving

  /// Waits for an action of type `A` dispatched by an effect (or from inside the lane), and
  /// checks its state change.
  ///
  /// With exhaustivity on, it must be the next action received; off, earlier actions of other
  /// types are skipped.
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
  public func receive<A: Action & Equatable>(
    _ action: A, timeout: Duration? = nil, assert update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let exhaustive = exhaustivity == .on
    let matches: @Sendable (any Action) -> Bool = { received in
      guard let received = received as? A else { return false }
      return exhaustive || received == action
    }
    guard
      let record = await next(
        matching: matches, named: "\(A.self)", timeout: timeout ?? self.timeout, at: location)
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

  /// Forgets the actions received and not asserted yet.
  public func skipReceivedActions() {
    log.withLock { $0.records.removeAll() }
  }

  /// Cancels the effects in flight, so that the test may end with them.
  public func skipInFlightEffects() {
    store.cancelAllEffects()
  }

  /// Waits until no effect is in flight and what they dispatched was processed; fails when
  /// some are still running after `timeout` (exhaustivity on), or when received actions are
  /// left unasserted.
  public func finish(
    timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let settled = await settle(within: timeout ?? self.timeout)
    if !settled, exhaustivity == .on {
      let running = store.activeEffectCount
      recordFailure(
        "\(running) effect\(running == 1 ? " is" : "s are") still running after "
          + "\(timeout ?? self.timeout).",
        at: location)
    }
    failOnUnasserted(at: location) { "\($0) left unasserted" }
  }

  // MARK: - Internals

  /// Waits for the next received record that matches (exhaustive: the next one, whatever it
  /// is); `nil` after a failure.
  private func next(
    matching matches: @escaping @Sendable (any Action) -> Bool, named name: String,
    timeout: Duration, at location: TestLocation
  ) async -> Record? {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
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
      if clock.now >= deadline {
        let running = store.activeEffectCount
        recordFailure(
          "Expected to receive \(name) within \(timeout), but none arrived; \(running) "
            + "effect\(running == 1 ? " is" : "s are") still running.",
          at: location)
        return nil
      }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  /// Checks that `update` turns the state before `record` into the state after it.
  private func check(
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
        + "\n\n(Expected: −, Actual: +)",
      at: location)
  }

  /// Fails when received actions are left unasserted (exhaustivity on), and forgets them.
  ///
  /// - Parameter message: Makes the message's first sentence from "N received action(s)".
  private func failOnUnasserted(
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

  /// Waits until the effects settled, up to `timeout`; returns whether they did.
  private func settle(within timeout: Duration) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
      if store.effectsInFlight == 0 {
        await store.settle()
        if store.effectsInFlight == 0 { return true }
      } else if store.activeEffectCount == 0 {
        // Only cancelled effects are left: whatever they dispatch now is dropped.
        await store.drainLane()
        return true
      }
      if clock.now >= deadline { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  private static func list(_ records: [Record]) -> String {
    records.map { record in
      "  • " + String(customDumping: record.action).replacingOccurrences(of: "\n", with: "\n    ")
    }.joined(separator: "\n")
  }
}
