import Sluice

/// A moment on the engine's clock (the configuration's `clock`), whatever the
/// clock's type: how long remains until it, and a sleep until it.
struct Deadline: Sendable {
  /// The time left until the deadline; zero or less once it passed.
  let remaining: @Sendable () -> Duration
  /// Returns at the deadline; throws `CancellationError` when the task is cancelled first.
  let sleep: @Sendable () async throws -> Void

  /// What `body` returns, or `nil` when the deadline comes first (`body` is then cancelled,
  /// and not waited for: ``abandoning(_:)``).
  func bound<Result: Sendable>(
    _ body: @escaping @Sendable () async throws -> Result
  ) async throws -> Result? {
    try await withThrowingTaskGroup(of: Result?.self) { group in
      group.addTask { try await abandoning(body) }
      group.addTask {
        try await sleep()
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
  }
}

/// What `operation` returns, run in a task of its own; throws `CancellationError` as soon as
/// the calling task is cancelled, and cancels `operation` without waiting for it to end.
///
/// PostgresNIO drops a query written to a connection that closed meanwhile (the write carries
/// no promise), so the query never ends, cancelled or not: an operation of the engine that gives
/// up (its deadline, its connection lost) leaves such a query behind instead of waiting for it.
func abandoning<Result: Sendable>(
  _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  // A stream's iterator returns `nil` as soon as the task waiting on it is cancelled.
  let (stream, continuation) = AsyncThrowingStream.makeStream(of: Result.self)
  let task = Task {
    do { continuation.yield(try await operation()) } catch { continuation.finish(throwing: error) }
  }
  defer { task.cancel() }
  for try await value in stream { return value }
  throw CancellationError()
}

extension Clock where Duration == Swift.Duration {
  /// The moment `duration` from now on this clock.
  func deadline(after duration: Duration) -> Deadline {
    let end = now.advanced(by: duration)
    return Deadline(
      remaining: { self.now.duration(to: end) },
      sleep: { try await self.sleep(until: end, tolerance: nil) })
  }

  /// Returns after `duration` on this clock; throws `CancellationError` when the task is
  /// cancelled first.
  func pause(for duration: Duration) async throws {
    try await sleep(until: now.advanced(by: duration), tolerance: nil)
  }
}
