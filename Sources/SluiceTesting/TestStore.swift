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
///   must turn it into exactly the state after. It returns a ``TestStoreTask`` for the effects
///   the action started.
/// - `receive` waits for an action that an effect (or a reducer, middleware or observer)
///   dispatched, named by type, by value, by enum case or by a predicate, and checks its state
///   change.
/// - ``finish(timeout:fileID:filePath:line:column:)`` waits for the effects to end; at its
///   deinitialization the store fails the test for actions and effects left over.
///
/// Failures are reported through IssueReporting, where the assertion was written, with a
/// readable diff of the expected and actual states. Set ``exhaustivity`` to
/// ``Exhaustivity/off`` to assert only what matters to a test.
public final class TestStore<State: Equatable & Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `exhaustivity`, `timeout` and `willWaitForEffectsAtTheEnd` are meant
  // to be set by the test before use; everything else is immutable or behind `log`'s lock.
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

  /// How long the deinitialization waits, at most, for the effects running at the end of the
  /// test to end: an effect whose last dispatch was just received may still be returning from
  /// it. The wait ends as soon as the last one ends (the effect runtime signals it); it needs no
  /// other thread of the cooperative pool, so concurrent tests ending together cannot stall each
  /// other.
  static var endOfTestGrace: Duration { .milliseconds(100) }
  /// How many times `send` and `receive` let the tasks ready to run go first while effects are
  /// running, so that an effect just started, or just returning from the dispatch a test
  /// received, gets to run before the test goes on (as The Composable Architecture does).
  static var yieldsToEffects: Int { 20 }

  /// Called by the deinitialization after it read the actions left unasserted and before it
  /// waits for the effects; for tests of the end-of-test check.
  package var willWaitForEffectsAtTheEnd: (@Sendable () -> Void)?

  /// The store under test.
  public let store: Store<State>
  /// How much the store insists on; ``Exhaustivity/on`` by default.
  public var exhaustivity: Exhaustivity = .on
  /// How long the `receive` methods, ``finish(timeout:fileID:filePath:line:column:)`` and the
  /// tasks `send` returns wait by default: 1 second, as in The Composable Architecture.
  ///
  /// The time counted is the time the waiting test could run: on a loaded machine, where the
  /// test and its effects wait for a thread, the wait lasts longer.
  public var timeout: Duration = .seconds(1)

  let log = Guarded(Log())
  private var recording: Subscription?
  private let location: TestLocation

  /// A test store over a new store (on its own dispatcher unless one is given).
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let store = TestStore(initialState: Search(), reducer: reducer, effects: effects) {
  ///   $0.searchClient = SearchClient(fetch: { _ in ["swift"] })  // a fake API
  ///   $0.clock = clock
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts with.
  ///   - dispatcher: The lane to join; a private one when `nil`.
  ///   - reducer: How actions change the state.
  ///   - middleware: Code run around the reducer, in order.
  ///   - effects: Work started after actions are reduced.
  ///   - fileID: The file failures of the end of the test are reported at; the caller's by
  ///     default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line those failures are reported at; the caller's by default.
  ///   - column: The column those failures are reported at; the caller's by default.
  ///   - dependencies: Sets what this test's effects read as `context.dependencies` (a fake
  ///     API, a test clock); the defaults for what it does not set. Each test store has its own.
  public convenience init(
    initialState: State, dispatcher: Dispatcher? = nil, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column, dependencies: (inout Dependencies) -> Void = { _ in }
  ) {
    self.init(
      Store(
        initialState: initialState, dispatcher: dispatcher, reducer: reducer,
        middleware: middleware, effects: effects, dependencies: dependencies),
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
    if exhaustivity == .on { checkTheEnd() }
    recording?.cancel()
    store.cancelEffects()
  }

  /// The store's current state.
  public var state: State { store.state }

  // MARK: - Sending

  /// Dispatches `action`, waits until it (and everything it caused synchronously) was
  /// processed, and checks the state change.
  ///
  /// ```swift
  /// let task = await store.send(StartTimer()) { $0.isTimerOn = true }
  /// await clock.advance(by: .seconds(1))
  /// await store.receive(Tick.self) { $0.seconds = 1 }
  /// await task.cancel()  // the timer effect ends with the test
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - update: Turns the state before the action into the state expected after it; `nil`
  ///     expects no change (or, with exhaustivity off, checks nothing).
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  /// - Returns: The effects the action started, to await or cancel.
  @discardableResult
  public func send<A: Action>(
    _ action: A, assert update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStoreTask {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    failOnUnasserted(at: location) { "Must handle \($0) before sending an action" }
    let effects = await store.sendMarked(action) { [log] inside in
      log.withLock { $0.sending = inside }
    }
    let task = TestStoreTask(effects: effects, action: "\(A.self)", timeout: timeout)
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
      recordFailure("\(A.self) was not processed by the store.", at: location)
      return task
    }
    check(sent, update, what: "sending \(A.self)", at: location)
    await yieldToEffects()
    return task
  }

  /// Forgets the actions received and not asserted yet.
  public func skipReceivedActions() {
    log.withLock { $0.records.removeAll() }
  }

  /// Cancels the effects in flight, so that the test may end with them.
  ///
  /// The end-of-test check no longer counts them, even one that ignores cancellation; what
  /// they dispatch once cancelled is dropped.
  public func skipInFlightEffects() {
    store.cancelEffects()
  }

  /// Waits until no effect is in flight and what they dispatched was processed; fails when
  /// some are still running after `timeout` (exhaustivity on), or when received actions are
  /// left unasserted.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  public func finish(
    timeout: Duration? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let settled = await settle(within: timeout ?? self.timeout)
    if !settled, exhaustivity == .on {
      let running = store.activeEffectSources
      recordFailure(
        "\(Self.effects(running)) still running after \(timeout ?? self.timeout): "
          + Self.names(running) + ".",
        at: location)
    }
    failOnUnasserted(at: location) { "\($0) left unasserted" }
  }

  // MARK: - The end of the test

  /// The deinitialization's check: fails for received actions left unasserted, effects still
  /// running, and actions those effects dispatch after the end of the test.
  ///
  /// An effect whose last dispatch was just received may still be returning from it, and the
  /// deinitialization cannot await: it waits, at most a moment (``endOfTestGrace``), for the
  /// effects running to end, woken when the last one ends, then for what they dispatched meanwhile to be processed. The
  /// effects still running then fail the test; so do the actions dispatched meanwhile, since
  /// nobody asserted them.
  private func checkTheEnd() {
    let left = log.withLock { log in
      defer { log.records.removeAll() }
      return log.records.filter { !$0.sent }
    }
    if !left.isEmpty {
      recordFailure(
        "The store received \(left.count) unexpected action\(left.count == 1 ? "" : "s"):\n\n"
          + Self.list(left) + "\n\nAssert them with receive(_:), or call "
          + "skipReceivedActions().",
        at: location)
    }
    let runningAtTheEnd = store.activeEffectSources
    guard !runningAtTheEnd.isEmpty else { return }
    willWaitForEffectsAtTheEnd?()
    // Woken by the effect runtime when the last effect not cancelled ends; a semaphore, not a
    // task: the effects may need this process's other threads.
    let ended = DispatchSemaphore(value: 0)
    store.whenNoActiveEffect { ended.signal() }
    let (seconds, attoseconds) = Self.endOfTestGrace.components
    _ = ended.wait(
      timeout: .now() + .seconds(Int(seconds)) + .nanoseconds(Int(attoseconds / 1_000_000_000)))
    // What the effects dispatched while the lane was held elsewhere is processed by the
    // holder, on its thread.
    store.flushLane()
    let late = log.withLock { log in
      defer { log.records.removeAll() }
      return log.records.filter { !$0.sent }
    }
    let running = store.activeEffectSources
    if !running.isEmpty {
      recordFailure(
        "\(Self.effects(running)) still running at the end of the test: "
          + Self.names(running) + ". Await finish() (or the task send returned) to let "
          + "\(running.count == 1 ? "it" : "them") end and assert what "
          + "\(running.count == 1 ? "it dispatches" : "they dispatch"), or call "
          + "skipInFlightEffects().",
        at: location)
    }
    if !late.isEmpty {
      recordFailure(
        (runningAtTheEnd.count == 1 ? "An effect" : "Effects")
          + " still running at the end of the test ("
          + Self.names(runningAtTheEnd) + ") dispatched \(late.count) "
          + "action\(late.count == 1 ? "" : "s") after it, which nobody asserted:\n\n"
          + Self.list(late) + "\n\nAwait finish() and assert them with receive(_:), or call "
          + "skipInFlightEffects().",
        at: location)
    }
  }

  /// Lets the tasks ready to run go first, a few times, while effects are running (see
  /// ``yieldsToEffects``).
  func yieldToEffects() async {
    for _ in 0..<Self.yieldsToEffects where store.activeEffectCount > 0 {
      await Task.yield()
    }
  }

  /// "1 effect is" or "3 effects are".
  static func effects(_ sources: [ErrorEvent.Source]) -> String {
    sources.count == 1 ? "1 effect is" : "\(sources.count) effects are"
  }

  /// The effects' sources, joined: "the effect on Wait, the effect on Load".
  static func names(_ sources: [ErrorEvent.Source]) -> String {
    sources.map { "the \($0)" }.joined(separator: ", ")
  }

  /// Waits until the effects settled, up to `timeout`; returns whether they did.
  private func settle(within timeout: Duration) async -> Bool {
    var budget = WaitBudget(timeout)
    while true {
      if store.effectsInFlight == 0 {
        await store.settle()
        if store.effectsInFlight == 0 { return true }
      } else if store.activeEffectCount == 0 {
        // Only cancelled effects are left: whatever they dispatch now is dropped.
        await store.drainLane()
        return true
      }
      if budget.isSpent() { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}
