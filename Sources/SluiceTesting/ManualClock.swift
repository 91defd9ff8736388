import Foundation
import Sluice

/// A clock that moves only when told: the clock of a ``StoreProperty``'s runs.
///
/// For a store's example tests, swift-clocks' `TestClock` does the same job (`import Clocks`;
/// `await clock.advance(by:)`), and Sluice's APIs that wait take any `Clock<Duration>`.
/// `ManualClock` exists for what a property run needs and `TestClock` does not offer: it counts
/// its sleepers (``sleeperCount``), so a run knows when every effect either ended or waits on
/// the clock, without yielding a fixed number of times; and a run wakes its sleepers one at a
/// time, by deadline then registration order, where `TestClock` wakes sleepers with equal
/// deadlines in no defined order. So a run replays the same way every time, and a shrunk
/// failure is the same failure.
///
/// ```swift
/// let clock = ManualClock()
/// let effects = Effects<Search>()
///   .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300), clock: clock)) { … }
/// store.dispatch(QueryChanged(text: "sw"))
/// await clock.advance(by: .milliseconds(300))   // the debounced effect runs now
/// ```
public final class ManualClock: Clock, @unchecked Sendable {
  // @unchecked Sendable: `current`, `sleepers` and `cancelled` are only touched under `lock`.

  /// A point on the manual clock: the time advanced since it was made.
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// The time since the clock's start.
    public let offset: Duration

    /// Creates an instant.
    public init(offset: Duration) { self.offset = offset }

    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "\(offset)" }
  }

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private let lock = NSLock()
  private var current = Instant(offset: .zero)
  private var sleepers: [Sleeper] = []
  /// Sleepers between their start and their registration, and those of them cancelled.
  private var registering: Set<UInt64> = []
  private var cancelled: Set<UInt64> = []
  private var nextID: UInt64 = 0

  /// A clock at offset zero.
  public init() {}

  public var now: Instant { lock.withLock { current } }

  public var minimumResolution: Duration { .zero }

  /// The number of tasks sleeping on the clock.
  public var sleeperCount: Int { lock.withLock { sleepers.count } }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = lock.withLock {
      defer { nextID += 1 }
      registering.insert(nextID)
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        lock.lock()
        registering.remove(id)
        if cancelled.remove(id) != nil {
          lock.unlock()
          return continuation.resume(throwing: CancellationError())
        }
        if deadline <= current {
          lock.unlock()
          return continuation.resume()
        }
        sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
        lock.unlock()
      }
    } onCancel: {
      lock.lock()
      if let index = sleepers.firstIndex(where: { $0.id == id }) {
        let sleeper = sleepers.remove(at: index)
        lock.unlock()
        sleeper.continuation.resume(throwing: CancellationError())
      } else {
        // Cancelled before it registered: it throws when it does. (A sleeper already woken
        // needs nothing.)
        if registering.contains(id) { cancelled.insert(id) }
        lock.unlock()
      }
    }
  }

  /// Moves the clock forward and wakes the sleepers whose deadline passed, earliest first.
  /// A negative duration moves nothing.
  public func advance(by duration: Duration = .zero) async {
    let due = lock.withLock {
      current = current.advanced(by: max(duration, .zero))
      let now = current
      let due = sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
    for _ in 0..<10 { await Task.yield() }
  }

  /// Wakes the earliest sleeper whose deadline is at most `target` (the first registered among
  /// equals) and moves the clock to its deadline; when there is none, moves the clock to
  /// `target`. Returns whether it woke one. For property runs, which let one effect go at a
  /// time so that what effects dispatch comes in the same order in every run.
  package func wakeNext(upTo target: Instant) -> Bool {
    let woken: Sleeper? = lock.withLock {
      let due = sleepers.indices.filter { sleepers[$0].deadline <= target }
      guard
        let index = due.min(by: {
          (sleepers[$0].deadline, sleepers[$0].id) < (sleepers[$1].deadline, sleepers[$1].id)
        })
      else {
        if current < target { current = target }
        return nil
      }
      let sleeper = sleepers.remove(at: index)
      if current < sleeper.deadline { current = sleeper.deadline }
      return sleeper
    }
    woken?.continuation.resume()
    return woken != nil
  }

  /// Moves the clock to the latest deadline of the current sleepers, waking them all.
  public func run() async {
    let distance = lock.withLock { sleepers.map(\.deadline).max().map(current.duration(to:)) }
    guard let distance else { return }
    await advance(by: distance)
  }
}
