import Foundation
import Sluice
import SluiceTestSupport

/// A state with a running total and the log of the action ids it reduced.
struct LaneLog: Equatable, Sendable {
  var total = 0
  var last: Int?
  var ids: [Int] = []
}

struct LaneAdd: Action {
  let id: Int
}

struct LaneNoop: Action {}

let laneLogReducer = Reducer<LaneLog>()
  .on(LaneAdd.self) { state, action in
    state.total += 1
    state.last = action.id
    state.ids.append(action.id)
  }

/// A thread-safe list, for recording from observers and threads.
final class Recorder<Element: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `items` is only touched under `lock`.
  private let lock = NSLock()
  private var items: [Element] = []

  func append(_ element: Element) { lock.withLock { items.append(element) } }
  var values: [Element] { lock.withLock { items } }
  var count: Int { lock.withLock { items.count } }
}

/// Runs `body` on `count` new threads at once and waits for all of them (at most `timeout`),
/// without blocking a thread of the cooperative pool. Returns `false` when they did not all
/// finish in time.
@discardableResult
func runOnThreads(
  _ count: Int, timeout: TimeInterval = hangGuardSeconds, _ body: @escaping @Sendable (Int) -> Void
) async -> Bool {
  await offPool { blockingRunOnThreads(count, timeout: timeout, body) }
}

/// Runs blocking `work` on a thread outside the cooperative pool and returns its result.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: work()) }.start()
  }
}

/// Waits for `semaphore` without blocking the cooperative pool; `false` on time-out.
func wait(for semaphore: DispatchSemaphore, timeout: TimeInterval = hangGuardSeconds) async -> Bool
{
  await offPool { semaphore.wait(timeout: .now() + timeout) == .success }
}

private func blockingRunOnThreads(
  _ count: Int, timeout: TimeInterval, _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
  let group = DispatchGroup()
  let start = DispatchSemaphore(value: 0)
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      start.wait()
      body(index)
      group.leave()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  for _ in 0..<count { start.signal() }
  return group.wait(timeout: .now() + timeout) == .success
}
