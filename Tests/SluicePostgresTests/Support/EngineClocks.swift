import Foundation
import Synchronization

/// A moment on the tests' clocks: a duration since the clock was made.
struct EngineInstant: InstantProtocol {
  var offset: Duration

  func advanced(by duration: Duration) -> EngineInstant {
    EngineInstant(offset: offset + duration)
  }

  func duration(to other: EngineInstant) -> Duration {
    other.offset - offset
  }

  static func < (lhs: EngineInstant, rhs: EngineInstant) -> Bool {
    lhs.offset < rhs.offset
  }
}

/// A clock that moves only when the test advances it, and tells the test each time something
/// starts sleeping on it (swift-clocks' `TestClock` is not a dependency of this target).
final class SteppedClock: Clock, Sendable {
  private struct Sleeper {
    let deadline: EngineInstant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = EngineInstant(offset: .zero)
    var sleepers: [Int: Sleeper] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())
  /// The deadline of every sleep, as it starts.
  let sleeps: AsyncStream<EngineInstant>
  private let started: AsyncStream<EngineInstant>.Continuation

  init() {
    (sleeps, started) = AsyncStream.makeStream(of: EngineInstant.self)
  }

  var now: EngineInstant { state.withLock { $0.now } }

  var minimumResolution: Duration { .zero }

  func sleep(until deadline: EngineInstant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    started.yield(deadline)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if Task.isCancelled { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock `duration` ahead and wakes every sleep whose deadline it reached.
  func advance(by duration: Duration) {
    let woken = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
      for id in due.keys { state.sleepers[id] = nil }
      return due.values.map(\.continuation)
    }
    for continuation in woken { continuation.resume() }
  }
}

/// A clock on which every sleep returns at once, moving the clock to its deadline: what took
/// time on it shows in ``now``, and nothing waits.
final class InstantClock: Clock, Sendable {
  private let current = Mutex(EngineInstant(offset: .zero))

  var now: EngineInstant { current.withLock { $0 } }

  var minimumResolution: Duration { .zero }

  func sleep(until deadline: EngineInstant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    current.withLock { now in now = max(now, deadline) }
    await Task.yield()
  }
}
