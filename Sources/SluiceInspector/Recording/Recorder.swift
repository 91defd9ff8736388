import Foundation
import Sluice
import Synchronization

/// What a recorder tells the connections that follow it.
enum RecorderEvent: Sendable {
  /// A step ended.
  case record(InspectorRecord)
  /// The ring let records go.
  case summary(InspectorSummary)
  /// A store the recorder had not seen: its state before its first step.
  case store(InspectorStoreInfo, StateValue)
  /// The follower fell behind and events were let go: it must start over from a snapshot.
  case resync
}

/// The events a follower gets, in order: the recorder's, with a ``RecorderEvent/resync`` in
/// place of those its buffer let go, before the first event after them.
///
/// The buffer keeps the newest events, so the loss shows when the next kept one is read: each
/// event carries its number, and a number skipped is a loss. The consumer starts over from a
/// snapshot before it sees anything newer than what it missed.
struct FollowedEvents: AsyncSequence, Sendable {
  typealias Element = RecorderEvent

  let numbered: AsyncStream<(UInt64, RecorderEvent)>

  struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncStream<(UInt64, RecorderEvent)>.AsyncIterator
    var expected: UInt64 = 0
    var held: RecorderEvent?

    mutating func next() async -> RecorderEvent? {
      if let event = held {
        held = nil
        return event
      }
      guard let (number, event) = await base.next() else { return nil }
      defer { expected = number &+ 1 }
      guard number == expected else {
        held = event
        return .resync
      }
      return event
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: numbered.makeAsyncIterator())
  }
}

/// One follower of a recorder: its stream, and how many events it was given.
final class RecorderFollower: Sendable {
  let continuation: AsyncStream<(UInt64, RecorderEvent)>.Continuation
  private let given = Atomic<UInt64>(0)

  init(_ continuation: AsyncStream<(UInt64, RecorderEvent)>.Continuation) {
    self.continuation = continuation
  }

  /// Gives `event` the next number and yields it; when the buffer is full, the oldest event
  /// waiting goes, and the gap in the numbers tells the consumer. Only the lane yields, one
  /// step at a time, so the numbers follow the order of the stream.
  func yield(_ event: RecorderEvent) {
    continuation.yield((given.wrappingAdd(1, ordering: .relaxed).oldValue, event))
  }
}

/// Everything the recorder holds at one moment, taken under its lock in one piece.
struct RecorderSnapshot: Sendable {
  let stores: [InspectorStoreInfo]
  /// Each store's state after the newest record (by store id).
  let latest: [String: StateValue]
  /// Each store's state before the oldest record kept (by store id).
  let base: [String: any Sendable]
  /// The records kept, oldest first.
  let records: [InspectorRecord]
  let summary: InspectorSummary
}

/// The inspector's ear on the lane: it turns the lane's steps into ``InspectorRecord``s (the
/// action, its origin, the stores it reached and the changes it made), keeps the newest in a
/// ring, and tells its followers.
///
/// The ``LaneInspector`` methods run on the lane, one at a time: they encode and diff there, so
/// that a record describes exactly the states the step went between. What the server reads
/// (the ring, the states, the fork's base) is guarded by `lock`.
final class Recorder: LaneInspector, @unchecked Sendable {
  // @unchecked Sendable: the fields marked "lane only" are touched only by the LaneInspector
  // methods, which the lane calls one at a time from the thread holding it; the others only
  // under `lock`; `redaction` and `capacity` are immutable.
  let redaction: Redaction
  /// How many records the ring keeps.
  let capacity: Int
  /// The time since the recorder was made, on the clock its steps' durations are measured on.
  private let elapsed: @Sendable () -> Duration
  private let lock = InternalLock()

  // Guarded by `lock`.
  private var ring: [InspectorRecord] = []
  private var head = 0
  private var summary = InspectorSummary()
  private var stores: [InspectorStoreInfo] = []
  private var latest: [String: StateValue] = [:]
  private var base: [String: any Sendable] = [:]
  private var followers: [UInt64: RecorderFollower] = [:]
  private var nextFollower: UInt64 = 0
  /// How many stores the recorder met: the next one is `s\(met + 1)`.
  private var met = 0

  // Lane only.
  private var known: [ObjectIdentifier: InspectorStoreInfo] = [:]
  private var encoded: [String: StateValue] = [:]
  private var open: Pending?
  private var nextSeq: UInt64 = 1
  /// Action type names, made once per type.
  private var typeNames: [ObjectIdentifier: String] = [:]

  /// A step being recorded (lane only).
  private struct Pending {
    let seq: UInt64
    /// When the step started, as ``Recorder/elapsed`` tells it.
    let started: Duration
    var kind = InspectorRecord.Kind.action
    var type: String?
    var payload = StateValue.null
    var action: (any Action)?
    var origin: DispatchOrigin?
    var stores: [String] = []
    var reducedBy: [String] = []
    var changes: [InspectorRecord.StoreChange] = []
    var statesAfter: [String: any Sendable] = [:]
    var replacements: [String: any Action] = [:]
  }

  init(redaction: Redaction, capacity: Int, clock: any Clock<Duration> = ContinuousClock()) {
    self.redaction = redaction
    self.capacity = max(1, capacity)
    elapsed = clock.stopwatch()
  }

  // MARK: - Reading (any thread)

  /// The stores, states and records now, in one piece.
  func snapshot() -> RecorderSnapshot {
    lock.withLock {
      RecorderSnapshot(
        stores: stores, latest: latest, base: base, records: orderedRecordsLocked(),
        summary: summary)
    }
  }

  /// Follows the recorder: the stream yields every record from now on, until `stop` is called
  /// or the recorder finishes. Also returns the snapshot taken at the same moment, so that no
  /// record falls between the two.
  func follow(buffer: Int) -> (
    snapshot: RecorderSnapshot, events: FollowedEvents, stop: @Sendable () -> Void
  ) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: (UInt64, RecorderEvent).self, bufferingPolicy: .bufferingNewest(buffer))
    let (id, snapshot) = lock.withLock {
      let id = nextFollower
      nextFollower += 1
      followers[id] = RecorderFollower(continuation)
      return (
        id,
        RecorderSnapshot(
          stores: stores, latest: latest, base: base, records: orderedRecordsLocked(),
          summary: summary)
      )
    }
    let stop: @Sendable () -> Void = { [weak self] in
      guard let self else { return }
      let removed = lock.withLock { followers.removeValue(forKey: id) }
      removed?.continuation.finish()
    }
    return (snapshot, FollowedEvents(numbered: stream), stop)
  }

  /// Ends every follower's stream.
  func finish() {
    let ended = lock.withLock {
      defer { followers.removeAll() }
      return Array(followers.values)
    }
    for follower in ended { follower.continuation.finish() }
  }

  private func orderedRecordsLocked() -> [InspectorRecord] {
    Array(ring[head...] + ring[..<head])
  }

  // MARK: - LaneInspector (lane only)

  func attached(to stores: [InspectedStore]) {
    for store in stores {
      guard let state = store.currentState() else { continue }
      _ = info(for: store, state: state)
    }
  }

  func currentStep() -> UInt64 {
    if let open { return open.seq }
    let pending = Pending(seq: takeSeq(), started: elapsed())
    open = pending
    return pending.seq
  }

  func stepStarted(_ action: any Action, origin: DispatchOrigin) {
    if open != nil { itemEnded() }
    var pending = Pending(seq: takeSeq(), started: elapsed())
    describe(&pending, action: action)
    pending.origin = origin
    open = pending
  }

  func workStarted(origin: DispatchOrigin) {
    if open != nil { itemEnded() }
    var pending = Pending(seq: takeSeq(), started: elapsed())
    pending.origin = origin
    open = pending
  }

  func storeStepped(
    _ store: InspectedStore, action: any Action, before: any Sendable, after: any Sendable,
    reduced: Bool, handled: Bool, replacement: (any Action)?
  ) {
    let info = info(for: store, state: before)
    var pending = open ?? Pending(seq: takeSeq(), started: elapsed())
    open = nil
    if pending.action == nil { describe(&pending, action: action) }
    if let committed = action as? TransactionCommitted {
      pending.kind = .transaction
      pending.type = committed.label
    }
    if handled || reduced, !pending.stores.contains(info.id) { pending.stores.append(info.id) }
    if reduced {
      record(after, before: before, of: info, in: &pending)
      pending.reducedBy.append(info.id)
      if pending.kind == .transaction { pending.statesAfter[info.id] = after }
      if let replacement { pending.replacements[info.id] = replacement }
    }
    open = pending
  }

  func storeReplaced(_ store: InspectedStore, before: any Sendable, after: any Sendable) {
    let info = info(for: store, state: before)
    var pending = open ?? Pending(seq: takeSeq(), started: elapsed())
    open = nil
    if pending.action == nil, pending.type == nil {
      pending.kind = .replacement
      pending.type = "replace \(info.name)"
    }
    if !pending.stores.contains(info.id) { pending.stores.append(info.id) }
    record(after, before: before, of: info, in: &pending)
    pending.statesAfter[info.id] = after
    open = pending
  }

  /// Forgets a store that left the lane: its info (and with it its initial state and handler
  /// table), its states. Records that name it stay until the ring lets them go; a fork leaves
  /// it out.
  func storeLeft(_ store: InspectedStore) {
    guard let info = known.removeValue(forKey: ObjectIdentifier(store)) else { return }
    encoded[info.id] = nil
    let forgotten = lock.withLock {
      stores.removeAll { $0.id == info.id }
      latest[info.id] = nil
      return base.removeValue(forKey: info.id)
    }
    // Released here, outside the lock: a value's deinit may call into the store.
    _ = (info, forgotten)
  }

  func itemEnded() {
    guard let pending = open else { return }
    open = nil
    // A step number handed out for a cause, in lane work that changed no store: nothing to keep.
    guard let type = pending.type else { return }
    let record = InspectorRecord(
      seq: pending.seq, kind: pending.kind, type: type, payload: pending.payload,
      stores: pending.stores, changes: pending.changes,
      durationMicros: Recorder.micros(elapsed() - pending.started), time: Date(),
      origin: pending.origin, effectStore: effectStore(of: pending.origin),
      action: pending.action, reducedBy: pending.reducedBy,
      replacements: pending.replacements, statesAfter: pending.statesAfter)
    let states = encoded
    // The record the ring lets go, and the fork's base moved past it, are worked out here, on
    // the lane, before the lock: the stores' reducers do not run under it.
    let full = lock.withLock { ring.count >= capacity }
    var evicted: InspectorRecord?
    var newBase: [String: any Sendable]?
    if full {
      let oldest: InspectorRecord = lock.withLock { ring[head] }
      let current: [String: any Sendable] = lock.withLock { base }
      let stores: [String: InspectedStore] = lock.withLock { storesByID() }
      evicted = oldest
      newBase = Fork.states(from: current, through: [oldest], stores: stores, skipping: [])
    }
    let (summaryNow, targets, replacedBase) = lock.withLock {
      () -> (InspectorSummary?, [RecorderFollower], [String: any Sendable]?)
      in
      latest = states
      guard let evicted, var moved = newBase else {
        ring.append(record)
        return (nil, Array(followers.values), nil)
      }
      ring[head] = record
      head = (head + 1) % capacity
      summary.dropped += 1
      summary.byType[evicted.type, default: 0] += 1
      swap(&base, &moved)
      return (summary, Array(followers.values), moved)
    }
    for follower in targets {
      follower.yield(.record(record))
      if let summaryNow { follower.yield(.summary(summaryNow)) }
    }
    // Released here, outside the lock: a value's deinit may call into the store.
    _ = (evicted, replacedBase)
  }

  // MARK: - Helpers

  private func takeSeq() -> UInt64 {
    defer { nextSeq &+= 1 }
    return nextSeq
  }

  private func describe(_ pending: inout Pending, action: any Action) {
    pending.action = action
    let actionType = type(of: action)
    if let name = typeNames[ObjectIdentifier(actionType)] {
      pending.type = name
    } else {
      let name = "\(actionType)"
      typeNames[ObjectIdentifier(actionType)] = name
      pending.type = name
    }
    pending.payload = redaction.encodeAction(action)
  }

  /// Encodes a store's new state and keeps what changed since its last one (lane only).
  private func record(
    _ after: any Sendable, before: any Sendable, of info: InspectorStoreInfo,
    in pending: inout Pending
  ) {
    let old = encoded[info.id] ?? redaction.encodeState(before)
    let new = redaction.encodeState(after)
    for change in StateValueChange.between(old, new) {
      pending.changes.append(InspectorRecord.StoreChange(store: info.id, change: change))
    }
    encoded[info.id] = new
  }

  /// The store's info, registering it with `state` as its state so far when it is new (lane
  /// only).
  private func info(for store: InspectedStore, state: any Sendable) -> InspectorStoreInfo {
    // By the inspected store's own identity, which the recorder keeps alive: a core's address
    // may be reused by a store made after one went.
    if let info = known[ObjectIdentifier(store)] { return info }
    let encodedState = redaction.encodeState(state)
    let (info, targets) = lock.withLock {
      met += 1
      let info = InspectorStoreInfo(id: "s\(met)", name: store.name, store: store)
      stores.append(info)
      base[info.id] = state
      latest[info.id] = encodedState
      return (info, Array(followers.values))
    }
    for follower in targets { follower.yield(.store(info, encodedState)) }
    known[ObjectIdentifier(store)] = info
    encoded[info.id] = encodedState
    return info
  }

  /// The id of the store whose effect dispatched an action of `origin`, when it is known
  /// (lane only).
  private func effectStore(of origin: DispatchOrigin?) -> String? {
    guard case .effect(_, _, let store?)? = origin?.cause else { return nil }
    return known[store]?.id
  }

  private func storesByID() -> [String: InspectedStore] {
    Dictionary(uniqueKeysWithValues: stores.map { ($0.id, $0.store) })
  }

  private static func micros(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
  }
}

extension Clock where Duration == Swift.Duration {
  /// A function that tells the time since now on this clock.
  fileprivate func stopwatch() -> @Sendable () -> Duration {
    let start = now
    return { start.duration(to: self.now) }
  }
}
