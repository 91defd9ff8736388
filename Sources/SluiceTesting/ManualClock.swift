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
///   .on(QueryChanged.self, policy: .debounce(for: .milliseconds(300))) { … }
/// let store = Store(initialState: Search(), reducer: reducer, effects: effects) {
///   $0.clock = clock  // the debounce waits on the store's clock
/// }
/// store.dispatch(QueryChanged(text: "sw"))
/// await clock.advance(by: .milliseconds(300))   // the debounced effect runs now
/// ```
public final class ManualClock: Clock, Sendable {

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

  /// The clock's time and its sleepers, behind the package's lock box.
  private struct Dial {
    var current = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    /// Sleepers between their start and their registration, and those of them cancelled.
    var registering: Set<UInt64> = []
    var cancelled: Set<UInt64> = []
    /// Sleepers woken whose task has not run since: ready, and waiting only for a thread.
    var woken: Set<UInt64> = []
    var nextID: UInt64 = 0
  }

  private let dial = Guarded(Dial())

  /// A clock at offset zero.
  public init() {}

  public var now: Instant { dial.withLock { $0.current } }

  public var minimumResolution: Duration { .zero }

  /// The number of tasks sleeping on the clock.
  public var sleeperCount: Int { dial.withLock { $0.sleepers.count } }

  /// The number of sleepers woken whose task has not run since: a property run does not count
  /// the time they wait for a thread on a busy machine as time in which nothing moves.
  package var wakingCount: Int { dial.withLock { $0.woken.count } }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = dial.withLock { dial in
      defer { dial.nextID += 1 }
      dial.registering.insert(dial.nextID)
      return dial.nextID
    }
    defer { dial.withLock { _ = $0.woken.remove(id) } }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        // `nil`: registered as a sleeper; otherwise whether it was cancelled meanwhile.
        let ends: Bool? = dial.withLock { dial in
          dial.registering.remove(id)
          if dial.cancelled.remove(id) != nil { return true }
          if deadline <= dial.current { return false }
          dial.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if ends == true { continuation.resume(throwing: CancellationError()) }
        if ends == false { continuation.resume() }
      }
    } onCancel: {
      let sleeper: Sleeper? = dial.withLock { dial in
        if let index = dial.sleepers.firstIndex(where: { $0.id == id }) {
          return dial.sleepers.remove(at: index)
        }
        // Cancelled before it registered: it throws when it does. (A sleeper already woken
        // needs nothing.)
        if dial.registering.contains(id) { dial.cancelled.insert(id) }
        return nil
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock forward and wakes the sleepers whose deadline passed, earliest first.
  /// A negative duration moves nothing.
  public func advance(by duration: Duration = .zero) async {
    let due = dial.withLock { dial in
      dial.current = dial.current.advanced(by: max(duration, .zero))
      let now = dial.current
      let due = dial.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      dial.sleepers.removeAll { $0.deadline <= now }
      dial.woken.formUnion(due.map(\.id))
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
    let woken: Sleeper? = dial.withLock { dial in
      let sleepers = dial.sleepers
      let due = sleepers.indices.filter { sleepers[$0].deadline <= target }
      guard
        let index = due.min(by: {
          (sleepers[$0].deadline, sleepers[$0].id) < (sleepers[$1].deadline, sleepers[$1].id)
        })
      else {
        if dial.current < target { dial.current = target }
        return nil
      }
      let sleeper = dial.sleepers.remove(at: index)
      dial.woken.insert(sleeper.id)
      if dial.current < sleeper.deadline { dial.current = sleeper.deadline }
      return sleeper
    }
    woken?.continuation.resume()
    return woken != nil
  }

  /// Moves the clock to the latest deadline of the current sleepers, waking them all.
  public func run() async {
    let distance = dial.withLock { dial in
      dial.sleepers.map(\.deadline).max().map(dial.current.duration(to:))
    }
    guard let distance else { return }
    await advance(by: distance)
  }
}
