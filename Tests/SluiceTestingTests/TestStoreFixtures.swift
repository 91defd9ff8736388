import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

// Shared state, actions, reducer, effects and helpers of the SluiceTesting tests.

struct Counter: Equatable, Sendable {
  var count = 0
  var text = ""
  var results: [String] = []
  var value: Loadable<Int> = .idle
  var waiting = false
}

/// `count += 1`.
struct Increment: Action {}
/// Sets `text`.
struct SetText: Action { let text: String }
/// Sets `count` and `text`: a change of two fields.
struct SetBoth: Action {
  let count: Int
  let text: String
}
/// Handled, changes nothing.
struct Noop: Action {}
/// Handled by no reducer; its effect dispatches `Pong(value:)`.
struct Ping: Action { let value: Int }
/// Handled by no reducer; its effect dispatches `Pong(value:)` for each value, in order.
struct Pings: Action { let values: [Int] }
/// Appends "pong <value>" to `results`.
struct Pong: Action, Equatable { let value: Int }
/// Handled by no reducer; its effect dispatches `Increment`, `SetText("burst")` and `Pong(3)`.
struct Burst: Action {}
/// Starts a load of `to` (`value` becomes loading); its effect dispatches `Loaded`.
struct Load: Action { let to: Int }
/// Completes the load.
struct Loaded: CompletableAction { let result: Result<Int, LoadError> }
/// Sets `text`; its effect is debounced by 300 ms on the test's clock, then dispatches
/// `Results(text:)`.
struct Query: Action { let text: String }
/// Sets `results` to `[text]`.
struct Results: Action, Equatable { let text: String }
/// Sets `waiting`; its effect sleeps on the test's clock until `until`, then
/// dispatches `Waited`.
struct Wait: Action { let until: Duration }
/// Clears `waiting`.
struct Waited: Action, Equatable {}
/// Handled by no reducer; its effect sleeps on the test's clock until `until`, then
/// appends to `FixtureLog` and dispatches nothing.
struct Work: Action { let until: Duration }

let counterReducer = Reducer<Counter>()
  .on(Increment.self) { state, _ in state.count += 1 }
  .on(SetText.self) { state, action in state.text = action.text }
  .on(SetBoth.self) { state, action in
    state.count = action.count
    state.text = action.text
  }
  .on(Noop.self) { _, _ in }
  .on(Pong.self) { state, action in state.results.append("pong \(action.value)") }
  .on(Load.self, start: \.value)
  .on(Loaded.self, complete: \.value)
  .on(Query.self) { state, action in state.text = action.text }
  .on(Results.self) { state, action in state.results = [action.text] }
  .on(Wait.self) { state, _ in state.waiting = true }
  .on(Waited.self) { state, _ in state.waiting = false }

/// The effects of the fixtures, sleeping on `clock` (any clock: the deadlines of `Wait` and
/// `Work` are offsets from its reading now; `Query`'s debounce waits on the store's clock, which
/// `makeStore(clock:log:initialState:)` sets to the same); `Work` appends its deadline to `log`.
func counterEffects(
  clock: some Clock<Duration>, log: TestLog<Duration> = TestLog()
) -> Effects<Counter> {
  let origin = clock.now
  return Effects<Counter>()
    .load(Load.self, as: Loaded.self) { request, _ in request.to }
    .on(Ping.self) { action, context in context.dispatch(Pong(value: action.value)) }
    .on(Pings.self) { action, context in
      for value in action.values { context.dispatch(Pong(value: value)) }
    }
    .on(Burst.self) { _, context in
      context.dispatch(Increment())
      context.dispatch(SetText(text: "burst"))
      context.dispatch(Pong(value: 3))
    }
    .on(Query.self, policy: .debounce(for: .milliseconds(300))) {
      action, context in
      context.dispatch(Results(text: action.text))
    }
    .on(Wait.self) { action, context in
      try await sleep(on: clock, until: origin.advanced(by: action.until))
      context.dispatch(Waited())
    }
    .on(Work.self) { action, _ in
      try await sleep(on: clock, until: origin.advanced(by: action.until))
      log.append(action.until)
    }
}

/// Sleeps on `clock` until `deadline`, unless the clock is there already: swift-clocks'
/// `TestClock` suspends a sleep until its current time until it is advanced again, so an effect
/// that starts sleeping after the test advanced the clock would wait for another advance.
func sleep<C: Clock>(on clock: C, until deadline: C.Instant) async throws {
  try Task.checkCancellation()
  guard clock.now < deadline else { return }
  try await clock.sleep(until: deadline, tolerance: nil)
}

/// A test store over a new `Counter` store with the fixtures' reducer and effects.
func makeStore(
  clock: some Clock<Duration> = ManualClock(), log: TestLog<Duration> = TestLog(),
  initialState: Counter = Counter()
) -> TestStore<Counter> {
  TestStore(
    initialState: initialState, reducer: counterReducer,
    effects: counterEffects(clock: clock, log: log)
  ) { $0.clock = clock }
}

/// A thread-safe list.
final class TestLog<Element: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `items` is only touched under `lock`.
  private let lock = NSLock()
  private var items: [Element] = []

  init() {}

  func append(_ element: Element) { lock.withLock { items.append(element) } }
  var values: [Element] { lock.withLock { items } }
}

/// A failure a test store recorded.
struct RecordedFailure: Sendable {
  let text: String
  let line: Int
  let fileID: String

  /// The lines of the text, without their indentation.
  var lines: [Substring] { text.split(separator: "\n").map { $0.trimmingPrefix(" ") } }
}

/// Runs `body`, which must fail with exactly one issue per phrase, in order, each issue's
/// comment containing its phrase; returns the failures.
@discardableResult
func expectFailures(
  _ phrases: String..., isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () async -> Void
) async -> [RecordedFailure] {
  let seen = TestLog<RecordedFailure>()
  await withKnownIssue(isolation: isolation, sourceLocation: sourceLocation) {
    await body()
  } matching: { issue in
    let text = issue.comments.map(\.rawValue).joined(separator: "\n")
    seen.append(
      RecordedFailure(
        text: text, line: issue.sourceLocation?.line ?? 0,
        fileID: issue.sourceLocation?.fileID ?? ""))
    return phrases.contains { text.contains($0) }
  }
  let failures = seen.values
  #expect(
    failures.count == phrases.count,
    "expected \(phrases.count) failure(s), got \(failures.count): \(failures.map(\.text))",
    sourceLocation: sourceLocation)
  for (failure, phrase) in zip(failures, phrases) {
    #expect(
      failure.text.contains(phrase), "failure \"\(failure.text)\" lacks \"\(phrase)\"",
      sourceLocation: sourceLocation)
  }
  return failures
}

/// Waits (yielding) until `condition` holds; records an issue after `timeout`, a hang guard.
func waitUntil(
  _ what: Comment, timeout: Duration = hangGuard,
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while !condition() {
    if clock.now >= deadline {
      Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
      return
    }
    await Task.yield()
  }
}

/// Waits until the effects cancelled by `skipInFlightEffects()` ended, so that the test store's
/// deinitialization does not count them as still running.
func waitForCancelledEffects(
  _ store: TestStore<Counter>, sourceLocation: SourceLocation = #_sourceLocation
) async {
  await waitUntil("the cancelled effects ended", sourceLocation: sourceLocation) {
    store.store.effectsInFlight == 0
  }
}

/// How long `body` takes: for the lower bounds of the test store's timeouts, and for upper
/// bounds that are ``hangGuard``, never for a claim about speed.
func elapsed(_ body: () async -> Void, isolation: isolated (any Actor)? = #isolation) async
  -> Duration
{
  let clock = ContinuousClock()
  let start = clock.now
  await body()
  return start.duration(to: clock.now)
}

/// A gate effects wait on until the test opens it; it ignores cancellation, like a call that
/// does not honour it.
final class Gate: @unchecked Sendable {
  // @unchecked Sendable: `isOpen` and `waiters` are only touched under `lock`.
  private let lock = NSLock()
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  init() {}

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.lock()
      if isOpen {
        lock.unlock()
        continuation.resume()
      } else {
        waiters.append(continuation)
        lock.unlock()
      }
    }
  }

  func open() {
    let waiting = lock.withLock {
      isOpen = true
      defer { waiters.removeAll() }
      return waiters
    }
    for waiter in waiting { waiter.resume() }
  }
}
