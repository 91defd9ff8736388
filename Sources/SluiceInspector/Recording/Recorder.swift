import Foundation
import Sluice
import Synchronization

/// What a recorder tells the connections that follow it.
enum RecorderEvent: Sendable {
  /// A step ended.
  case record(InspectorRecord)
  /// The ring let records go.
  case summary(InspectorSummary)
  /// A store the recorder had not seen: its state before its first step (not encoded: the
  /// follower encodes it, off the lane).
  case store(InspectorStoreInfo, any Sendable)
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

/// The inspector's ear on the lane: it keeps the lane's steps as ``InspectorRecord``s (the
/// action, its origin, and the states before and after of the stores each step touched), keeps
/// the newest in a ring, and tells its followers.
///
/// The ``LaneInspector`` methods run on the lane, one at a time, and only keep values: nothing
/// is encoded, compared or reduced there. A step takes the lock once, when it ends. When the
/// ring is full, the fork's base moves to the states after the record the ring lets go (kept
/// in it), no reducer runs. What the page reads is worked out off the lane by ``describer``.
/// What the server reads (the ring, the stores, the fork's base) is guarded by `lock`.
final class Recorder: LaneInspector, @unchecked Sendable {
  // @unchecked Sendable: the fields marked "lane only" are touched only by the LaneInspector
  // methods, which the lane calls one at a time from the thread holding it; the others only
  // under `lock`; the `let`s are immutable and Sendable. For the same reason no access to a
  // field overlaps another: their run-time exclusivity checks are off (`@exclusivity`).
  let redaction: Redaction
  /// How many records the ring keeps.
  let capacity: Int
  /// Describes the records for the readers, off the lane.
  let describer: RecordDescriber
  /// The time since the recorder was made, on the clock its steps' durations are measured on.
  private let elapsed: @Sendable () -> Duration
  /// When the recorder was made: a record's time is this plus ``elapsed`` at its end.
  private let started = Date()
  private let lock = InternalLock()

  /// A store the recorder knows, and its state before the oldest record kept.
  private struct Slot {
    let info: InspectorStoreInfo
    var base: any Sendable
  }

  // Guarded by `lock`.
  @exclusivity(unchecked) private var ring: [InspectorRecord] = []
  @exclusivity(unchecked) private var head = 0
  /// What the ring let go, but for the last run of one type (counted in `runType`/`runCount`
  /// instead: a string hashed for each record let go would cost every step of a full ring).
  @exclusivity(unchecked) private var summary = InspectorSummary()
  @exclusivity(unchecked) private var runType: String?
  @exclusivity(unchecked) private var runCount = 0
  @exclusivity(unchecked) private var slots: [Slot] = []
  @exclusivity(unchecked) private var followers: [(id: UInt64, follower: RecorderFollower)] = []
  @exclusivity(unchecked) private var nextFollower: UInt64 = 0

  // Lane only.
  @exclusivity(unchecked) private var known: [ObjectIdentifier: InspectorStoreInfo] = [:]
  /// How many stores the recorder met: the next one is number `met + 1`.
  @exclusivity(unchecked) private var met = 0
  /// The store of the last step, and its number: most steps reach the same store again.
  @exclusivity(unchecked) private var lastStore: (id: ObjectIdentifier, number: Int)?
  @exclusivity(unchecked) private var open: Pending?
  @exclusivity(unchecked) private var nextSeq: UInt64 = 1
  /// Action type names, made once per type; the last one, looked up without hashing.
  @exclusivity(unchecked) private var typeNames: [ObjectIdentifier: String] = [:]
  @exclusivity(unchecked) private var lastType: (id: ObjectIdentifier, name: String)?

  /// A step being recorded (lane only).
  private struct Pending {
    let seq: UInt64
    /// When the step started, as ``Recorder/elapsed`` tells it.
    let started: Duration
    var kind = InspectorRecord.Kind.action
    var type: String?
    var action: (any Action)?
    var origin: DispatchOrigin?
    var first: InspectorRecord.Entry?
    var more: [InspectorRecord.Entry] = []

    init(seq: UInt64, started: Duration) {
      self.seq = seq
      self.started = started
    }

    mutating func append(_ entry: InspectorRecord.Entry) {
      if first == nil { first = entry } else { more.append(entry) }
    }
  }

  init(redaction: Redaction, capacity: Int, clock: any Clock<Duration> = ContinuousClock()) {
    self.redaction = redaction
    self.capacity = max(1, capacity)
    describer = RecordDescriber(redaction: redaction, capacity: self.capacity)
    if clock is ContinuousClock {
      // The default clock, read without going through the existential.
      let continuous = ContinuousClock()
      let start = continuous.now
      elapsed = { start.duration(to: continuous.now) }
    } else {
      elapsed = clock.stopwatch()
    }
  }

  // MARK: - Reading (any thread)

  /// The stores, states and records now, in one piece.
  func snapshot() -> RecorderSnapshot {
    lock.withLock { snapshotLocked() }
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
      followers.append((id, RecorderFollower(continuation)))
      return (id, snapshotLocked())
    }
    let stop: @Sendable () -> Void = { [weak self] in
      guard let self else { return }
      let removed = lock.withLock { () -> RecorderFollower? in
        guard let index = followers.firstIndex(where: { $0.id == id }) else { return nil }
        return followers.remove(at: index).follower
      }
      removed?.continuation.finish()
    }
    return (snapshot, FollowedEvents(numbered: stream), stop)
  }

  /// Ends every follower's stream.
  func finish() {
    let ended = lock.withLock {
      defer { followers.removeAll() }
      return followers.map { $0.follower }
    }
    for follower in ended { follower.continuation.finish() }
  }

  private func snapshotLocked() -> RecorderSnapshot {
    RecorderSnapshot(
      stores: slots.map(\.info),
      base: Dictionary(uniqueKeysWithValues: slots.map { ($0.info.number, $0.base) }),
      records: Array(ring[head...] + ring[..<head]), summary: summaryLocked(),
      describer: describer)
  }

  // MARK: - LaneInspector (lane only)

  func attached(to stores: [InspectedStore]) {
    for store in stores {
      guard let state = store.currentState() else { continue }
      _ = number(of: store, state: state)
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
    let number = number(of: store, state: before)
    var pending = open.take() ?? Pending(seq: takeSeq(), started: elapsed())
    if pending.action == nil { describe(&pending, action: action) }
    // Compared by type first: a cast of every action would cost each step.
    var committed = false
    if type(of: action) == TransactionCommitted.self,
      let transaction = action as? TransactionCommitted
    {
      pending.kind = .transaction
      pending.type = transaction.label
      committed = true
    }
    if handled || reduced {
      pending.append(
        InspectorRecord.Entry(
          store: number, before: before, after: after, reduced: reduced,
          setsState: reduced && committed, replacement: reduced ? replacement : nil))
    }
    open = pending
  }

  func storeReplaced(_ store: InspectedStore, before: any Sendable, after: any Sendable) {
    let number = number(of: store, state: before)
    var pending = open.take() ?? Pending(seq: takeSeq(), started: elapsed())
    if pending.action == nil, pending.type == nil {
      pending.kind = .replacement
      pending.type = "replace \(store.name)"
    }
    pending.append(
      InspectorRecord.Entry(
        store: number, before: before, after: after, reduced: false, setsState: true,
        replacement: nil))
    open = pending
  }

  /// Forgets a store that left the lane: its info (and with it its initial state and handler
  /// table), its base state. Records that name it stay until the ring lets them go; a fork
  /// leaves it out.
  func storeLeft(_ store: InspectedStore) {
    guard let info = known.removeValue(forKey: ObjectIdentifier(store)) else { return }
    if lastStore?.id == ObjectIdentifier(store) { lastStore = nil }
    let forgotten = lock.withLock { () -> Slot? in
      guard let index = slots.firstIndex(where: { $0.info.number == info.number }) else {
        return nil
      }
      return slots.remove(at: index)
    }
    // Released here, outside the lock: a value's deinit may call into the store.
    _ = (info, forgotten)
  }

  func itemEnded() {
    guard var pending = open.take() else { return }
    // A step number handed out for a cause, in lane work that changed no store: nothing to keep.
    guard let type = pending.type.take() else { return }
    let end = elapsed()
    // The pending step's values move into the record (taken, not copied).
    let effectStore = effectStore(of: pending.origin)
    var more: [InspectorRecord.Entry] = []
    swap(&more, &pending.more)
    var record = InspectorRecord(
      seq: pending.seq, kind: pending.kind, type: type,
      durationMicros: Recorder.micros(end - pending.started),
      time: started.addingTimeInterval(Recorder.seconds(end)), origin: pending.origin.take(),
      effectStoreNumber: effectStore, action: pending.action.take(), first: pending.first.take(),
      more: more)
    var yielded: InspectorRecord?
    var targets: [RecorderFollower] = []
    var summaryNow: InspectorSummary?
    lock.lock()
    if !followers.isEmpty {
      targets = followers.map { $0.follower }
      yielded = record
    }
    if ring.count < capacity {
      ring.append(record)
      lock.unlock()
    } else {
      // The record the ring lets go comes out into `record`; the fork's base moves to its
      // states after, and it takes the base's old states out, to be released after the lock.
      swap(&ring[head], &record)
      head = head + 1 == capacity ? 0 : head + 1
      summary.dropped += 1
      countDroppedLocked(record.type)
      moveBaseLocked(past: &record)
      if !targets.isEmpty { summaryNow = summaryLocked() }
      lock.unlock()
    }
    if let yielded {
      for follower in targets {
        follower.yield(.record(yielded))
        if let summaryNow { follower.yield(.summary(summaryNow)) }
      }
    }
    // `record` (the one let go, with the base's old states) is released here, outside the lock:
    // a value's deinit may call into the store.
  }

  // MARK: - Helpers

  /// Counts a record of `type` the ring let go: in the run of its type when it continues it.
  private func countDroppedLocked(_ type: String) {
    if runType == type {
      runCount += 1
      return
    }
    if let runType { summary.byType[runType, default: 0] += runCount }
    runType = type
    runCount = 1
  }

  /// The summary, with the run counted.
  private func summaryLocked() -> InspectorSummary {
    var counted = summary
    if let runType { counted.byType[runType, default: 0] += runCount }
    return counted
  }

  /// Moves the fork's base past `record`, the oldest record, which the ring let go: each store
  /// it changed gets its state after it, and `record` keeps the state the base had instead.
  private func moveBaseLocked(past record: inout InspectorRecord) {
    if var entry = record.first {
      record.first = nil
      swapBaseLocked(with: &entry)
      record.first = entry
    }
    for index in record.more.indices {
      swapBaseLocked(with: &record.more[index])
    }
  }

  private func swapBaseLocked(with entry: inout InspectorRecord.Entry) {
    guard entry.changes,
      let slot = slots.firstIndex(where: { $0.info.number == entry.store })
    else { return }
    swap(&slots[slot].base, &entry.after)
  }

  private func takeSeq() -> UInt64 {
    defer { nextSeq &+= 1 }
    return nextSeq
  }

  private func describe(_ pending: inout Pending, action: any Action) {
    pending.action = action
    let id = ObjectIdentifier(type(of: action))
    if let lastType, lastType.id == id {
      pending.type = lastType.name
      return
    }
    let name: String
    if let known = typeNames[id] {
      name = known
    } else {
      name = "\(type(of: action))"
      typeNames[id] = name
    }
    lastType = (id, name)
    pending.type = name
  }

  /// The store's number, registering it with `state` as its state so far when it is new (lane
  /// only).
  private func number(of store: InspectedStore, state: any Sendable) -> Int {
    // By the inspected store's own identity, which the recorder keeps alive: a core's address
    // may be reused by a store made after one went.
    let id = ObjectIdentifier(store)
    if let lastStore, lastStore.id == id { return lastStore.number }
    if let info = known[id] {
      lastStore = (id, info.number)
      return info.number
    }
    met += 1
    let info = InspectorStoreInfo(number: met, name: store.name, store: store)
    let targets = lock.withLock {
      slots.append(Slot(info: info, base: state))
      return followers.map { $0.follower }
    }
    for follower in targets { follower.yield(.store(info, state)) }
    known[id] = info
    lastStore = (id, info.number)
    return info.number
  }

  /// The number of the store whose effect dispatched an action of `origin`, when it is known
  /// (lane only).
  private func effectStore(of origin: DispatchOrigin?) -> Int? {
    guard case .effect(_, _, let store?)? = origin?.cause else { return nil }
    return known[store]?.number
  }

  private static func micros(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(
      clamping: seconds.multipliedReportingOverflow(by: 1_000_000).partialValue
        &+ attoseconds / 1_000_000_000_000)
  }

  private static func seconds(_ duration: Duration) -> TimeInterval {
    let (seconds, attoseconds) = duration.components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}

extension Clock where Duration == Swift.Duration {
  /// A function that tells the time since now on this clock.
  fileprivate func stopwatch() -> @Sendable () -> Duration {
    let start = now
    return { start.duration(to: self.now) }
  }
}
