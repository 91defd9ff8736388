import Foundation

/// Where and how a store's state is persisted: a backend, a key, a schema version with its
/// migrations, and when to save.
///
/// Pick a backend with a static factory, then adjust:
///
/// ```swift
/// let store = Store(
///   initialState: Settings(), reducer: reducer,
///   persistence: .jsonFile("settings", in: supportFolder)
///     .version(2, migrations: [1: { $0["theme"] = "light" }]))
/// ```
///
/// A migration step gets a record's JSON as a ``StateValue`` and changes it in place; the step
/// under `n` brings version `n` to `n + 1`, and a record of version 1 runs every step up to the
/// current version before it decodes as the state:
///
/// ```swift
/// let key = PersistenceKey<Note>.jsonFile("note", in: folder).version(3, migrations: [
///   1: { state in state["title"] = state["name"]; state["name"] = nil },  // v1 → v2
///   2: { state in state["tags"] = [] },                                     // v2 → v3
/// ])
/// ```
///
/// The full key is `"<namespace>.<name>"` (Flask's key space): `"sluice.settings"` by default.
/// The persisted form is the state's `Codable` form; to keep a property out (something
/// transient, like a spinner flag), leave it out of `CodingKeys` and give it a default value.
public struct PersistenceKey<State: Codable & Sendable>: Sendable {
  /// The name of the state in the key space.
  let name: String
  /// The key space (Flask's `archiveKeySpace`).
  private(set) var namespace: String
  /// The backend.
  let storage: any PersistenceStorage
  /// The current schema version of the state; records are written with it.
  private(set) var version = 1
  /// The steps from older versions, by the version each starts from.
  private(set) var migrations: [Int: PersistenceMigration] = [:]
  /// When saves happen.
  private(set) var saving = SaveMode.coalesced()
  var clock: PersistenceClock

  /// A key on any backend.
  ///
  /// - Parameters:
  ///   - name: The state's name in the key space.
  ///   - namespace: The key space; `"sluice"` by default.
  ///   - storage: The backend.
  public init(_ name: String, namespace: String = "sluice", storage: any PersistenceStorage) {
    self.name = name
    self.namespace = namespace
    self.storage = storage
    clock = PersistenceClock(ContinuousClock())
  }

  /// The full key: `"<namespace>.<name>"`.
  public var fullKey: String { "\(namespace).\(name)" }

  /// The same key with a schema version and the migration steps from older ones, by the
  /// version each step starts from.
  public func version(_ version: Int, migrations: [Int: PersistenceMigration] = [:])
    -> PersistenceKey
  {
    var copy = self
    copy.version = max(1, version)
    copy.migrations = migrations
    return copy
  }

  /// The same key in another key space.
  public func namespace(_ namespace: String) -> PersistenceKey {
    var copy = self
    copy.namespace = namespace
    return copy
  }

  /// The same key with another save mode.
  public func saving(_ mode: SaveMode) -> PersistenceKey {
    var copy = self
    copy.saving = mode
    return copy
  }

  /// The same key with the coalescing windows measured on `clock` (a test clock).
  public func clock<C: Clock>(_ clock: C) -> PersistenceKey where C.Duration == Duration {
    var copy = self
    copy.clock = PersistenceClock(clock)
    return copy
  }
}

/// A migration step: changes a record's JSON in place, from one schema version to the next; see
/// ``PersistenceKey/version(_:migrations:)``.
public typealias PersistenceMigration = @Sendable (inout StateValue) throws -> Void

/// When a persisted store saves.
public enum SaveMode: Sendable, Hashable {
  /// After a change, wait until `debounce` passed without another change, but never more than
  /// `maxDelay` after the first unsaved change: continuous activity cannot postpone the write
  /// forever (Flask's did). Writes happen off the dispatch path. The defaults are 2 s (Flask's)
  /// and 10 s.
  case coalesced(debounce: Duration = .seconds(2), maxDelay: Duration = .seconds(10))
  /// Every committed change is durable before `dispatch` returns (RxStateFlow's guarantee):
  /// one write per changed store and lane step, on the lane. Slower; see the benchmarks.
  case writeThrough
}

/// A clock, reduced to what the coalescing needs: the time since it was made, and sleeping
/// until a point in that time.
///
/// The time is kept in whole nanoseconds (`ticks`), which the store's hot path reads and stores
/// without the 128-bit arithmetic of `Duration`. The continuous clock (the default) is read
/// through the coarse monotonic clock: a save window of seconds needs no nanoseconds, and it is
/// read after every change of the store.
struct PersistenceClock: Sendable {
  /// For the coarse monotonic clock: its reading when this clock was made. `nil` for another
  /// clock, read through `generic`.
  private let coarseOrigin: Int64?
  /// The time since the clock was made, for a clock other than the continuous one.
  private let generic: (@Sendable () -> Int64)?
  let sleep: @Sendable (Duration) async throws -> Void

  init<C: Clock>(_ clock: C) where C.Duration == Duration {
    if C.self == ContinuousClock.self {
      let origin = PersistenceClock.coarseTicks()
      coarseOrigin = origin
      generic = nil
      sleep = { offset in
        let now = PersistenceClock.coarseTicks() &- origin
        try await Task.sleep(for: max(.zero, offset - PersistenceClock.duration(now)))
      }
      return
    }
    let origin = clock.now
    coarseOrigin = nil
    generic = { PersistenceClock.ticks(origin.duration(to: clock.now)) }
    sleep = { offset in
      // A test clock may already be at the deadline, and some (swift-clocks' `TestClock`)
      // suspend a sleep until their current time until they are advanced again.
      let deadline = origin.advanced(by: offset)
      try Task.checkCancellation()
      guard clock.now < deadline else { return }
      try await clock.sleep(until: deadline, tolerance: nil)
    }
  }

  /// The time since the clock was made, in nanoseconds (saturated at `Int64.max`, 292 years).
  func ticks() -> Int64 {
    if let coarseOrigin { return PersistenceClock.coarseTicks() &- coarseOrigin }
    return generic?() ?? 0
  }

  /// The time since the clock was made.
  func now() -> Duration { Self.duration(ticks()) }

  static func duration(_ ticks: Int64) -> Duration { .nanoseconds(ticks) }

  /// `duration` in whole nanoseconds, saturated to the range of `Int64`.
  static func ticks(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    if sumOverflow { return seconds < 0 ? .min : .max }
    return sum
  }

  /// The coarse monotonic time in nanoseconds (a few milliseconds of resolution, a few
  /// nanoseconds to read). A monotonic clock counts from boot, so this cannot overflow.
  static func coarseTicks() -> Int64 {
    var spec = timespec()
    #if os(Linux)
      clock_gettime(CLOCK_MONOTONIC_COARSE, &spec)
    #else
      clock_gettime(CLOCK_MONOTONIC, &spec)
    #endif
    return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
  }
}
