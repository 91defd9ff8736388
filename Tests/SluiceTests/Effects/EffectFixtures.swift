import Foundation
import Sluice
import SluiceTestSupport
import Testing

// Shared state, actions and helpers of the effect and command tests. Every name starts with
// `Eff` so it cannot clash with the fixtures of other test folders.

struct EffState: Equatable, Sendable {
  var count = 0
  var results: [Int] = []
  var queries: [String] = []
}

/// Starts effects; reduced as `count += 1`.
struct EffTrigger: Action { let value: Int }
/// What effects dispatch back; appended to `results`.
struct EffResult: Action { let value: Int }
/// Reduced as `count += 1`.
struct EffIncrement: Action {}
/// A search query; appended to `queries`.
struct EffQuery: Action { let text: String }
/// Handled by no reducer: only effects react to it.
struct EffPing: Action {}
/// Handled by no reducer: cancels effects.
struct EffStop: Action {}
/// Starts failing effects; reduced as `count += 1`.
struct EffFail: Action { let value: Int }
/// An action that may carry an error (JBFlux); its value is appended to `results`.
struct EffCarry: ErrorCarrying {
  var value: Int
  var error: (any Error)?
}

struct EffError: Error, Equatable { let code: Int }

let effReducer = Reducer<EffState>()
  .on(EffTrigger.self) { state, _ in state.count += 1 }
  .on(EffResult.self) { state, action in state.results.append(action.value) }
  .on(EffIncrement.self) { state, _ in state.count += 1 }
  .on(EffQuery.self) { state, action in state.queries.append(action.text) }
  .on(EffFail.self) { state, _ in state.count += 1 }
  .on(EffCarry.self) { state, action in state.results.append(action.value) }

func effStore(
  dispatcher: Dispatcher? = nil, reducer: Reducer<EffState> = effReducer,
  effects: Effects<EffState> = Effects(), clock: (any Clock<Duration>)? = nil
) -> Store<EffState> {
  Store(initialState: EffState(), dispatcher: dispatcher, reducer: reducer, effects: effects) {
    if let clock { $0.clock = clock }
  }
}

/// Gates keyed by an integer: effects wait on a key until the test opens it. This is how the
/// tests decide when an effect finishes, without sleeping.
final class EffGates: @unchecked Sendable {
  // @unchecked Sendable: every field is only touched under `lock`.
  private let lock = NSLock()
  private var opened: Set<Int> = []
  private var plain: [(key: Int, continuation: CheckedContinuation<Void, Never>)] = []
  private var throwing: [UInt64: (key: Int, continuation: CheckedContinuation<Void, any Error>)] =
    [:]
  private var cancelledBeforeWaiting: Set<UInt64> = []
  private var nextID: UInt64 = 0

  /// Waits until `key` is opened; ignores cancellation (like a network call that does not
  /// honour it).
  func wait(_ key: Int = 0) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.lock()
      if opened.contains(key) {
        lock.unlock()
        continuation.resume()
        return
      }
      plain.append((key, continuation))
      lock.unlock()
    }
  }

  /// Waits until `key` is opened; throws `CancellationError` as soon as the task is cancelled.
  func waitOrCancel(_ key: Int = 0) async throws {
    let id = lock.withLock {
      defer { nextID += 1 }
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        lock.lock()
        if cancelledBeforeWaiting.remove(id) != nil {
          lock.unlock()
          continuation.resume(throwing: CancellationError())
          return
        }
        if opened.contains(key) {
          lock.unlock()
          continuation.resume()
          return
        }
        throwing[id] = (key, continuation)
        lock.unlock()
      }
    } onCancel: {
      lock.lock()
      if let entry = throwing.removeValue(forKey: id) {
        lock.unlock()
        entry.continuation.resume(throwing: CancellationError())
      } else {
        cancelledBeforeWaiting.insert(id)
        lock.unlock()
      }
    }
  }

  /// Opens `key`: wakes its waiters, and later waits on it return at once.
  func open(_ key: Int = 0) {
    lock.lock()
    opened.insert(key)
    let wakePlain = plain.filter { $0.key == key }.map(\.continuation)
    plain.removeAll { $0.key == key }
    let wakeThrowing = throwing.filter { $0.value.key == key }
    for id in wakeThrowing.keys { throwing.removeValue(forKey: id) }
    lock.unlock()
    for continuation in wakePlain { continuation.resume() }
    for entry in wakeThrowing.values { entry.continuation.resume() }
  }

  /// The number of tasks waiting on `key`.
  func waiting(_ key: Int = 0) -> Int {
    lock.withLock {
      plain.count { $0.key == key } + throwing.values.count { $0.key == key }
    }
  }

  /// The number of tasks waiting on any key.
  var waitingTotal: Int { lock.withLock { plain.count + throwing.count } }
}

/// Polls `condition` until it holds, at most `timeout`; returns whether it held. Used to wait for
/// something asynchronous without a fixed sleep.
///
/// The default is a liveness guard, not a speed check: with the whole suite on two cores, the
/// effects being waited for can wait more than 10 s for a thread (CI saw it in
/// `settleWaitsForChainsOfEffects`), so a hang fails after ``hangGuard`` instead.
func effEventually(
  timeout: Duration = hangGuard, _ condition: @Sendable () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var spins = 0
  while !condition() {
    if clock.now >= deadline { return false }
    spins += 1
    if spins.isMultiple(of: 64) {
      try? await Task.sleep(for: .microseconds(200))
    } else {
      await Task.yield()
    }
  }
  return true
}

/// Yields many times, to give a wrongly running task every chance to run before a negative
/// assertion (the assertion itself never depends on timing when the code is right).
func effYield(_ times: Int = 200) async {
  for _ in 0..<times { await Task.yield() }
}

/// Runs `work` and returns as soon as it finished; a hang becomes a failure after `timeout`
/// (a hang guard) instead of a stuck test run.
@discardableResult
func effCompletes(
  within timeout: Duration = hangGuard, sourceLocation: SourceLocation = #_sourceLocation,
  _ work: @escaping @Sendable () async -> Void
) async -> Bool {
  let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
  let task = Task {
    await work()
    outcome.yield(true)
  }
  let hangGuard = Task {
    do {
      try await Task.sleep(for: timeout)
      outcome.yield(false)
    } catch {}
  }
  var iterator = outcomes.makeAsyncIterator()
  let finished = await iterator.next() ?? false
  hangGuard.cancel()
  #expect(finished, "did not finish within \(timeout)", sourceLocation: sourceLocation)
  if !finished { task.cancel() }
  return finished
}

/// `await store.settle()`, failing instead of hanging when it does not return.
func effSettle<S>(_ store: Store<S>, sourceLocation: SourceLocation = #_sourceLocation) async {
  await effCompletes(sourceLocation: sourceLocation) { await store.settle() }
}

/// `await dispatcher.settle()`, failing instead of hanging when it does not return.
func effSettle(_ dispatcher: Dispatcher, sourceLocation: SourceLocation = #_sourceLocation)
  async
{
  await effCompletes(sourceLocation: sourceLocation) { await dispatcher.settle() }
}
