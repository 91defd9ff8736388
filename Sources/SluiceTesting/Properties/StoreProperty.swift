import Foundation
import PropertyBased
import Sluice

/// A property-based test of a store: random sequences of steps (actions, moves of the clock,
/// custom steps) run through a real store, with invariants and an optional reference model
/// checked after every step. A failure is shrunk to a minimal sequence and printed as a
/// ready-to-paste ``TestStore`` test, with the seed that replays it.
///
/// ```swift
/// @Test func openAndDoneAddUp() async {
///   await StoreProperty(initialState: TodoList(), reducer: todoReducer, actions: steps)
///     .invariant("open + done == all", code: "state.openCount + state.doneCount == state.items.count") {
///       $0.openCount + $0.doneCount == $0.items.count
///     }
///     .check()
/// }
/// ```
///
/// Runs are deterministic: a seed gives the same steps, and the effects woken by a move of the
/// clock run one at a time, earliest first, each until it ended or sleeps again on the clock.
/// Effects must therefore wait only on the clock the property gives them: their store's
/// `context.dependencies.clock`, which each run sets to a ``ManualClock`` of its own.
public struct StoreProperty<State: Equatable & Sendable>: Sendable {
  /// A named check of the state after each step.
  struct Invariant: Sendable {
    let name: String
    let code: String?
    let holds: @Sendable (State) -> Bool
  }

  /// How long a run waits for the effects to end or to sleep on the clock after a step.
  static var settleTimeout: Duration { .seconds(2) }

  let initialState: State
  let reducer: Reducer<State>
  let middleware: [Middleware<State>]
  let effects: Effects<State>
  let dependencies: (@Sendable (inout Dependencies) -> Void)?
  let actions: ActionGenerator<State>
  let testStoreCode: String?
  var invariants: [Invariant] = []
  var model: (@Sendable (inout State, any Action) -> Void)?

  /// A property of the store made from these parts; each run gets a new store and a new clock.
  ///
  /// - Parameters:
  ///   - initialState: The state each run starts from.
  ///   - reducer: The store's reducer.
  ///   - middleware: The store's middleware.
  ///   - effects: The store's effects. Every wait of theirs must be on
  ///     `context.dependencies.clock`, the run's ``ManualClock``.
  ///   - dependencies: Sets the store's other dependencies (fakes), for every run; the run's
  ///     clock replaces a clock it sets.
  ///   - actions: The steps the runs take.
  ///   - testStore: How the printed test makes its test store: a Swift expression. By default
  ///     `TestStore(initialState: …, reducer: reducer)`, the initial state written as Swift;
  ///     with effects, `TestStore(…, effects: effects) { $0.clock = clock }` (and
  ///     `dependencies(&$0)` first when `dependencies` is given).
  public init(
    initialState: State, reducer: Reducer<State> = Reducer(),
    middleware: [Middleware<State>] = [], effects: Effects<State> = Effects(),
    dependencies: (@Sendable (inout Dependencies) -> Void)? = nil,
    actions: ActionGenerator<State>, testStore: String? = nil
  ) {
    self.initialState = initialState
    self.reducer = reducer
    self.middleware = middleware
    self.effects = effects
    self.dependencies = dependencies
    self.actions = actions
    self.testStoreCode = testStore
  }

  /// Adds an invariant: `holds` must be true of the state after every step.
  ///
  /// - Parameters:
  ///   - name: What it says, for messages.
  ///   - code: The invariant as a Swift expression over `state`, which the printed test checks
  ///     at its end, so that it fails by itself. Without it, the printed test ends with a
  ///     comment naming the invariant.
  ///   - holds: The invariant.
  public func invariant(
    _ name: String, code: String? = nil, _ holds: @escaping @Sendable (State) -> Bool
  ) -> Self {
    var copy = self
    copy.invariants.append(Invariant(name: name, code: code, holds: holds))
    return copy
  }

  /// Sets the reference model: a simple function of the actions that the state must match
  /// after every action the store processes (sent, or dispatched by effects).
  ///
  /// The printed test then asserts the model's states, so it fails where the store departs
  /// from the model.
  public func model(_ step: @escaping @Sendable (inout State, any Action) -> Void) -> Self {
    var copy = self
    copy.model = step
    return copy
  }

  func makeStore(_ clock: ManualClock) -> Store<State> {
    Store(
      initialState: initialState, reducer: reducer, middleware: middleware,
      effects: effects
    ) { [dependencies] values in
      dependencies?(&values)
      values.clock = clock
    }
  }

  /// Runs random sequences of steps; on the first failure, shrinks it, fails the test with the
  /// seed and the minimal sequence as a `TestStore` test, and returns the failure.
  ///
  /// - Parameters:
  ///   - count: How many sequences to run; by default 100, or the value of the environment
  ///     variable `SLUICE_PROPERTY_COUNT` when it is set (for longer runs).
  ///   - length: How many steps a sequence takes.
  ///   - seed: A seed a failure printed: runs that one sequence only (then shrinks it again).
  ///     The environment variable `SLUICE_PROPERTY_SEED` does the same.
  ///   - fileID: The file a failure is reported at; the caller's by default.
  ///   - filePath: The full path of that file, for XCTest; the caller's by default.
  ///   - line: The line a failure is reported at; the caller's by default.
  ///   - column: The column a failure is reported at; the caller's by default.
  /// - Returns: The failure, or `nil` when every sequence passed.
  @discardableResult
  public func check(
    count: Int? = nil, length: ClosedRange<Int> = 1...20, seed: String? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> PropertyFailure? {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let environment = ProcessInfo.processInfo.environment
    let fixedSeed = seed ?? environment["SLUICE_PROPERTY_SEED"]
    let runs =
      fixedSeed != nil
      ? 1 : count ?? environment["SLUICE_PROPERTY_COUNT"].flatMap { Int($0) } ?? 100
    let runner = PropertyRunner(property: self)
    for _ in 0..<max(runs, 0) {
      var source: Xoshiro
      if let fixedSeed {
        guard let seeded = Xoshiro(seed: fixedSeed) else {
          recordFailure(
            "\"\(fixedSeed)\" is not a seed of a property run: it is the base64 text a failure "
              + "printed.",
            at: location)
          return nil
        }
        source = seeded
      } else {
        source = Xoshiro()
      }
      let runSeed = source.currentSeed
      let span = UInt64(length.count)
      let steps = length.lowerBound + Int(source.next().multipliedFullWidth(by: span).high)
      let trace = await runner.run(choices: [], source: source, length: steps)
      guard trace.violation != nil else { continue }
      // Effects that did not settle would make every candidate wait as long: not shrunk.
      let (minimal, attempts) =
        trace.violation == .unsettled
        ? (trace, 0) : await PropertyShrinker(runner: runner).shrink(trace)
      let failure = PropertyFailure(
        seed: runSeed, description: describe(minimal), steps: minimal.entries.count,
        originalSteps: trace.entries.count, shrinkRuns: attempts,
        testCode: TestCodePrinter(property: self).print(minimal))
      recordFailure(failure.message, at: location)
      return failure
    }
    return nil
  }

  /// What broke, in words.
  private func describe(_ trace: PropertyTrace<State>) -> String {
    let steps = "\(trace.entries.count) step\(trace.entries.count == 1 ? "" : "s")"
    switch trace.violation {
    case .invariant(let name): return "the invariant \"\(name)\" does not hold after \(steps)"
    case .model: return "the state departs from the reference model after \(steps)"
    case .unsettled:
      return "after \(steps), effects neither ended nor slept on the property's clock within "
        + "\(Self.settleTimeout) (a wait on another clock or on an event makes runs "
        + "nondeterministic)"
    case .leftPaused(let name):
      return "the custom step \"\(name)\" left the lane paused after \(steps): a step must "
        + "release the locks it takes, or the next send would wait for ever"
    case nil: return "no failure"
    }
  }
}

/// A failure of a ``StoreProperty``: the seed that replays it and the minimal sequence of
/// steps, as a `TestStore` test.
public struct PropertyFailure: Sendable, CustomStringConvertible {
  /// The seed of the failing sequence: pass it to `check(seed:)`, or set
  /// `SLUICE_PROPERTY_SEED`, to run it again.
  public let seed: String
  /// What broke, in words.
  public let description: String
  /// The number of steps of the minimal sequence.
  public let steps: Int
  /// The number of steps of the sequence first found.
  public let originalSteps: Int
  /// How many sequences the shrinker ran.
  public let shrinkRuns: Int
  /// The minimal sequence as a Swift Testing test of a ``TestStore``, ready to paste.
  public let testCode: String

  /// The message the test fails with.
  public var message: String {
    "Property failed: \(description) (shrunk from \(originalSteps) step"
      + "\(originalSteps == 1 ? "" : "s") in \(shrinkRuns) runs).\n"
      + "Replay it with check(seed: \"\(seed)\") or SLUICE_PROPERTY_SEED=\(seed).\n"
      + "The minimal sequence, as a TestStore test:\n\n\(testCode)"
  }
}
