import Foundation
import PostgresNIO

/// Wakes the engine's waits when the server announces an append: a dedicated connection runs
/// `LISTEN sluice_log`, and every notification starts a new generation.
///
/// Notifications are a wake-up, not a record: one sent while the connection was down is lost.
/// So a wait also looks at the log now and then (``PostgresLogEngine``), and every change of
/// the listening connection (up or down) starts a new generation as well, which makes the waits
/// look at once. The listening connection is opened on the first wait and opened again, after a
/// pause of 100 ms to 2 s on the configuration's clock, whenever it is lost, until ``stop()``.
final class LogNotifications: @unchecked Sendable {
  // @unchecked Sendable: `configuration` is an immutable Sendable value, and every other stored
  // property is read and written only while `lock` is held. Continuations are resumed after the
  // lock is released.
  private let configuration: PostgresLogEngine.Configuration
  private let lock = NSLock()
  private var generation: UInt64 = 0
  private var isListening = false
  private var isStopped = false
  private var listener: Task<Void, Never>?
  private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  private var waiterCount = 0

  init(configuration: PostgresLogEngine.Configuration) {
    self.configuration = configuration
  }

  deinit {
    listener?.cancel()
  }

  /// The current generation, and whether the listening connection is up; starts listening on
  /// the first call.
  func observe() -> (generation: UInt64, isListening: Bool) {
    lock.withLock {
      if listener == nil, !isStopped {
        listener = Task { [weak self] in await self?.listen() }
      }
      return (generation, isListening)
    }
  }

  /// Returns once a generation after `generation` starts, after `pause`, or when the task is
  /// cancelled, whichever comes first.
  func wait(after generation: UInt64, atMost pause: Duration) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.wait(after: generation) }
      group.addTask { [configuration] in try? await configuration.clock.pause(for: pause) }
      await group.next()
      group.cancelAll()
    }
  }

  /// Stops listening and wakes every wait.
  func stop() {
    let task = lock.withLock {
      isStopped = true
      defer { listener = nil }
      return listener
    }
    task?.cancel()
    advance(isListening: false)
  }

  /// Returns once a generation after `generation` starts, or when the task is cancelled.
  private func wait(after generation: UInt64) async {
    let id = lock.withLock {
      waiterCount &+= 1
      return waiterCount
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = lock.withLock {
          // Checked under the lock: a cancellation handler that ran before this point found
          // no continuation to resume.
          if self.generation != generation || Task.isCancelled { return true }
          waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let continuation = lock.withLock { waiters.removeValue(forKey: id) }
      continuation?.resume()
    }
  }

  /// Starts a new generation and wakes every wait; `isListening` says whether notifications
  /// can arrive from now on.
  private func advance(isListening: Bool?) {
    let woken = lock.withLock {
      generation &+= 1
      if let isListening { self.isListening = isListening }
      defer { waiters.removeAll() }
      return Array(waiters.values)
    }
    for continuation in woken { continuation.resume() }
  }

  /// Listens until the task is cancelled, opening the connection again whenever it is lost.
  private func listen() async {
    var pause = Duration.milliseconds(100)
    while !Task.isCancelled {
      if let connection = try? await LogConnection.open(configuration) {
        do {
          try await withTaskCancellationHandler {
            try await connection.listen(on: LogSchema.channel) { notifications in
              advance(isListening: true)
              pause = .milliseconds(100)
              for try await _ in notifications { advance(isListening: nil) }
            }
          } onCancel: {
            LogConnection.closeNow(connection)
          }
        } catch {
          // The connection was lost: the waits poll until it is back.
        }
        await LogConnection.close(connection)
      }
      advance(isListening: false)
      try? await configuration.clock.pause(for: pause)
      pause = min(pause * 2, .seconds(2))
    }
  }
}
