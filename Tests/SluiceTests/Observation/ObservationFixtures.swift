import Dispatch
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

// Shared fixtures of the observation tests. Every name starts with `Obs` so that it never
// collides with the helpers of other test files.

// MARK: - States and actions

struct ObsInner: Equatable, Sendable {
  var x = 0
  var y = 0
}

/// An `Equatable` state: whole-state observers fire only on real changes.
struct ObsState: Equatable, Sendable {
  var a = 0
  var b = 0
  var inner = ObsInner()
}

/// A state that is not `Equatable`: whole-state observers fire for every handled action.
struct ObsPlainState: Sendable {
  var a = 0
  var b = 0
}

struct ObsSetA: Action { let value: Int }
struct ObsSetB: Action { let value: Int }
struct ObsSetAB: Action {
  let a: Int
  let b: Int
}
struct ObsSetInnerX: Action { let value: Int }
struct ObsIncrementA: Action {}
/// Handled by the reducers below, changes nothing.
struct ObsNoChange: Action {}
/// Handled by no reducer.
struct ObsUnhandled: Action {}

enum ObsFixtures {
  static let reducer = Reducer<ObsState>()
    .on(ObsSetA.self) { state, action in state.a = action.value }
    .on(ObsSetB.self) { state, action in state.b = action.value }
    .on(ObsSetAB.self) { state, action in
      state.a = action.a
      state.b = action.b
    }
    .on(ObsSetInnerX.self) { state, action in state.inner.x = action.value }
    .on(ObsIncrementA.self) { state, _ in state.a += 1 }
    .on(ObsNoChange.self) { _, _ in }

  static let plainReducer = Reducer<ObsPlainState>()
    .on(ObsSetA.self) { state, action in state.a = action.value }
    .on(ObsSetB.self) { state, action in state.b = action.value }
    .on(ObsIncrementA.self) { state, _ in state.a += 1 }
    .on(ObsNoChange.self) { _, _ in }

  static func store(
    _ initialState: ObsState = ObsState(), dispatcher: Dispatcher? = nil
  ) -> Store<ObsState> {
    Store(initialState: initialState, dispatcher: dispatcher, reducer: reducer)
  }

  static func plainStore(_ initialState: ObsPlainState = ObsPlainState()) -> Store<ObsPlainState> {
    Store(initialState: initialState, reducer: plainReducer)
  }
}

/// An object observers can be bound to.
final class ObsOwner: Sendable {
  let name: String
  init(name: String = "owner") { self.name = name }
}

// MARK: - Thread-safe helpers

/// Records values from any thread, and lets a test wait (asynchronously, with a timeout that
/// fails rather than hangs) until a number of values arrived.
final class ObsRecorder<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched under `lock`.
  private struct Waiter {
    let id: Int
    let count: Int
    let continuation: CheckedContinuation<Bool, Never>
  }

  private let lock = NSLock()
  private var storage: [Value] = []
  private var waiters: [Waiter] = []
  private var nextWaiterID = 0

  init() {}

  var values: [Value] { lock.withLock { storage } }
  var count: Int { lock.withLock { storage.count } }
  var last: Value? { lock.withLock { storage.last } }

  func append(_ value: Value) {
    let ready: [Waiter] = lock.withLock {
      storage.append(value)
      let count = storage.count
      let ready = waiters.filter { $0.count <= count }
      waiters.removeAll { $0.count <= count }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: true) }
  }

  func removeAll() { lock.withLock { storage.removeAll() } }

  /// Waits until at least `count` values were recorded; `false` when `timeout` passed first.
  func waitForCount(_ count: Int, timeout: Double = hangGuardSeconds) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let id: Int? = lock.withLock {
        if storage.count >= count { return nil }
        let id = nextWaiterID
        nextWaiterID += 1
        waiters.append(Waiter(id: id, count: count, continuation: continuation))
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
        let expired: Waiter? = lock.withLock {
          guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
          return waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
      }
    }
  }
}

/// A thread-safe boolean.
final class ObsFlag: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value = false

  init() {}

  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}

/// A thread-safe box, for handing a subscription (or a lock, a flag) to the closure it belongs to.
final class ObsBox<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `stored` is only touched under `lock`.
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// A one-shot event: waited on asynchronously by tests, or blocking by helper threads (never by
/// a test's own task, and never on the main queue).
final class ObsEvent: @unchecked Sendable {
  // @unchecked Sendable: `fired` is only touched under `condition`.
  private let condition = NSCondition()
  private var fired = false
  private let waiters = ObsRecorder<Bool>()

  init() {}

  var isSignalled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return fired
  }

  func signal() {
    condition.lock()
    let first = !fired
    fired = true
    condition.broadcast()
    condition.unlock()
    if first { waiters.append(true) }
  }

  /// Waits asynchronously; `false` when `timeout` passed first.
  func wait(timeout: Double = hangGuardSeconds) async -> Bool {
    await waiters.waitForCount(1, timeout: timeout)
  }

  /// Blocks the calling thread; for helper threads and observers running on dispatch queues.
  func waitBlocking(timeout: Double = hangGuardSeconds) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while !fired {
      if !condition.wait(until: deadline) { return fired }
    }
    return true
  }
}

/// Detects an observer invoked while a previous call of it is still running.
final class ObsOverlapProbe: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched under `lock`.
  private let lock = NSLock()
  private var inside = false
  private var overlaps = 0

  init() {}

  /// The number of calls that began while another one was running.
  var overlapCount: Int { lock.withLock { overlaps } }

  /// Runs `body` as one observer call, noting any overlap.
  func call(_ body: () -> Void) {
    lock.withLock {
      if inside { overlaps += 1 }
      inside = true
    }
    body()
    // Give a concurrent call every chance to start while this one is still "inside".
    for _ in 0..<3 { sched_yield() }
    lock.withLock { inside = false }
  }
}

/// Threads started at once, each running `body(index)`; `join` waits for all of them.
final class ObsThreads: Sendable {
  private let finished = ObsRecorder<Int>()
  private let count: Int

  init(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    self.count = count
    let finished = self.finished
    for index in 0..<count {
      let thread = Thread {
        body(index)
        finished.append(index)
      }
      thread.start()
    }
  }

  /// Waits until every thread finished; `false` when `timeout` passed first.
  func join(timeout: Double = hangGuardSeconds) async -> Bool {
    await finished.waitForCount(count, timeout: timeout)
  }
}

/// Runs `body` on a new thread (not the test's task, not the main queue) and waits for it.
func obsOnBackgroundThread(
  timeout: Double = hangGuardSeconds, _ body: @escaping @Sendable () -> Void
) async -> Bool {
  await ObsThreads(1) { _ in body() }.join(timeout: timeout)
}

/// Waits until every block submitted to `queue` so far has run (a barrier also for concurrent
/// queues); `false` when `timeout` passed first.
func obsDrain(_ queue: DispatchQueue, timeout: Double = hangGuardSeconds) async -> Bool {
  let done = ObsEvent()
  queue.async(flags: .barrier) { done.signal() }
  return await done.wait(timeout: timeout)
}

/// Re-checks `condition`, running `poke` and yielding (then sleeping briefly) between checks:
/// for conditions that become true after lane work the test cannot await directly; `false`
/// only after ``hangGuard``.
func obsEventually(poke: () -> Void = {}, until condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: hangGuard)
  var checks = 0
  while !condition() {
    guard ContinuousClock.now < deadline else { return false }
    poke()
    checks += 1
    if checks < 64 {
      await Task.yield()
    } else {
      try? await Task.sleep(for: .microseconds(200))
    }
  }
  return true
}

/// Collects the first `count` elements of `stream` in a new task; the task is cancelled after
/// `timeout`, so a stream that yields too few elements gives a short array instead of a hang.
func obsCollect<Element: Sendable>(
  _ stream: AsyncStream<Element>, count: Int, timeout: Double = hangGuardSeconds
) async -> [Element] {
  let task = Task {
    var collected: [Element] = []
    for await element in stream {
      collected.append(element)
      if collected.count == count { break }
    }
    return collected
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { task.cancel() }
  return await task.value
}

/// The deliveries a test can run under: every one but `.mainActor`, which needs a running main
/// loop.
enum ObsDeliveryKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case synchronous
  case serialQueue
  case concurrentQueue

  var testDescription: String { rawValue }

  /// A delivery of this kind, with its queue (if any).
  func make() -> (delivery: Delivery, queue: DispatchQueue?) {
    switch self {
    case .synchronous:
      return (.synchronous, nil)
    case .serialQueue:
      let queue = DispatchQueue(label: "obs.delivery.serial")
      return (.queue(queue), queue)
    case .concurrentQueue:
      let queue = DispatchQueue(label: "obs.delivery.concurrent", attributes: .concurrent)
      return (.queue(queue), queue)
    }
  }
}
