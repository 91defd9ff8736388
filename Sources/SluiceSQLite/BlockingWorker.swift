import Foundation

/// A thread of its own for work that blocks (SQLite waiting for another process's write lock),
/// with an `async` front that suspends the caller instead of blocking it.
///
/// On Linux, Dispatch's global queues and the Swift concurrency pool share a few threads (two
/// on a two-core machine): a task blocked in SQLite's busy handler would stall every other task
/// of the process. Jobs run one at a time, in the order they were given.
final class BlockingWorker: Sendable {
  /// The jobs and the thread's stop flag, shared with the thread (which must not keep the
  /// worker alive).
  private final class Queue: @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `stopped` are only touched under `condition`.
    let condition = NSCondition()
    var jobs: [@Sendable () -> Void] = []
    var stopped = false

    func run() {
      while true {
        condition.lock()
        while jobs.isEmpty, !stopped { condition.wait() }
        if jobs.isEmpty {
          condition.unlock()
          return
        }
        let job = jobs.removeFirst()
        condition.unlock()
        job()
      }
    }
  }

  private let queue = Queue()

  /// Starts the thread, named `name`.
  init(name: String) {
    let queue = self.queue
    let thread = Thread { queue.run() }
    thread.name = name
    thread.start()
  }

  deinit {
    queue.condition.lock()
    queue.stopped = true
    queue.condition.signal()
    queue.condition.unlock()
  }

  /// Runs `body` on the worker's thread and returns its result; the caller is suspended, not
  /// blocked, meanwhile.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.condition.lock()
      queue.jobs.append { continuation.resume(with: Result { try body() }) }
      queue.condition.signal()
      queue.condition.unlock()
    }
  }
}
