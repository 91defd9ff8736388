import Dispatch
import Foundation
import Synchronization

/// What a persisted store found when it was created.
public enum RestoreOutcome: Sendable, CustomStringConvertible {
  /// Nothing was stored under the key: the store starts from its initial state.
  case empty
  /// The stored state was restored.
  case restored(version: Int)
  /// The stored state was restored after migrating it.
  case migrated(from: Int, to: Int)
  /// The stored data could not be used: the store starts from its initial state, and the bad
  /// bytes were kept under `quarantineKey` (`nil` when even that failed; see the error).
  case discarded(PersistenceError, quarantineKey: String?)
  /// The stored state is newer than the code: it was left untouched, the store starts from its
  /// initial state and does not save under the key.
  case refused(PersistenceError)
  /// The backend could not be read: the store starts from its initial state.
  case unreadable(PersistenceError)

  public var description: String {
    switch self {
    case .empty: "empty"
    case .restored(let version): "restored (version \(version))"
    case .migrated(let from, let to): "migrated from version \(from) to \(to)"
    case .discarded(let error, let key): "discarded (\(error)); kept as \(key ?? "nothing")"
    case .refused(let error): "refused (\(error))"
    case .unreadable(let error): "unreadable (\(error))"
    }
  }
}

/// The persistence of one store: restores its state when the store is made, then saves it
/// after changes, off the dispatch path (or before `dispatch` returns, in write-through mode).
///
/// ```swift
/// store.persistence?.isEnabled = false      // Flask's `shouldArchive = false`
/// try await store.persistence?.flush()      // everything dispatched so far is durable
/// ```
public final class PersistenceController<State: Codable & Sendable>: PersistenceHandle,
  WriteThroughTarget, @unchecked Sendable
{
  // @unchecked Sendable: mutable fields are touched only under `lock`, except
  // `awaitsWriteThrough`, which only the lane touches, and the atomics `windowOpen` and
  // `latestChange`; `storage` is Sendable and is written on `writeQueue` or, in write-through
  // mode, on the lane.

  /// The full key the state is saved under.
  public let key: String
  /// What was found at creation.
  public let restoreOutcome: RestoreOutcome
  /// The schema version written.
  let version: Int
  let storage: any PersistenceStorage
  private let saving: SaveMode
  private let clock: PersistenceClock
  private let writeQueue: DispatchQueue
  private let lock = InternalLock()
  private let encoder = JSONEncoder()

  // Guarded by `lock`.
  private var enabled = true
  /// Whether the state changed since the last write. The state written is read from the store
  /// when the write happens: the latest committed one, so nothing is copied per change.
  private var pending = false
  /// When the first change of the open window happened (see `windowOpen`).
  private var firstChange: Duration?
  private var writes = 0
  private var lastFailure: PersistenceError?
  private var reportTo: ErrorSink?
  private var readState: (@Sendable () -> State)?
  private var subscription: Subscription?
  private var signal: AsyncStream<Void>.Continuation?
  private var writer: Task<Void, Never>?
  private var closed = false
  /// The restore could not read the backend, or could not quarantine the bad bytes it found:
  /// whatever the key holds is quarantined before the first write replaces it (a read that
  /// failed only for a while must not cost the record); until that succeeds, nothing is
  /// written.
  private var preserveBeforeWrite = false

  // Atomics, read and written without `lock` by `changed()`, which runs after every step.
  /// Whether a coalescing window is open: a change is pending and the writer knows. Set and
  /// cleared under `lock` (with `pending` and `firstChange`); read without it by `changed()`,
  /// which then only records the time of the change. A change that sees the window open just
  /// before a write closes it is still in that write: the write clears the flag before it reads
  /// the state, and it reads the state under a lock the change's step took before `changed()`.
  private let windowOpen = Atomic<Bool>(false)
  /// When the latest change of the open window happened, in ``PersistenceClock`` ticks.
  private let latestChange = Atomic<Int64>(0)

  /// Restores the state under `key`'s full key; the store calls ``start(store:errors:)`` next.
  @usableFromInline
  init(key: PersistenceKey<State>) {
    self.key = key.fullKey
    version = key.version
    storage = key.storage
    saving = key.saving
    clock = key.clock
    writeQueue = DispatchQueue(label: "sluice.persistence.\(key.fullKey)")
    encoder.outputFormatting = [.sortedKeys]
    (restored, restoreOutcome) = Self.restore(key)
    if case .refused = restoreOutcome { enabled = false }
    switch restoreOutcome {
    case .unreadable, .discarded(_, quarantineKey: nil): preserveBeforeWrite = true
    default: break
    }
  }

  /// The state found, if one was restored.
  @usableFromInline let restored: State?

  deinit {
    signal?.finish()
    writer?.cancel()
  }

  // MARK: - Public controls

  /// Whether changes are saved. Switching it off drops nothing: the latest unsaved state is
  /// written when it is switched on again. A store whose record was refused (newer version)
  /// cannot be switched on.
  public var isEnabled: Bool {
    get { lock.withLock { enabled } }
    set {
      let resume = lock.withLock { () -> Bool in
        if case .refused = restoreOutcome { return false }
        defer { enabled = newValue }
        return newValue && !enabled
      }
      guard resume else { return }
      if writesThrough, let lane = lock.withLock({ lane }) {
        // The write-through list belongs to the lane: mark the change there.
        lane.perform { self.changed() }
      } else {
        changed()
        // A window left open while disabled has no writer waiting for it any more.
        lock.withLock { signal }?.yield()
      }
    }
  }

  /// Whether a change is waiting to be written.
  public var hasPendingChanges: Bool { lock.withLock { pending } }

  /// The number of writes done so far.
  public var writeCount: Int { lock.withLock { writes } }

  /// The last error of a restore or a save, if any.
  public var lastError: PersistenceError? { lock.withLock { lastFailure } }

  /// Returns when every action dispatched to the store before this call is durable: a
  /// barrier. Writes the latest state now instead of waiting for the coalescing window.
  ///
  /// - Throws: ``PersistenceError`` when the write failed (the state stays pending and is
  ///   retried on the next change or flush).
  public func flush() async throws {
    if let barrier = lock.withLock({ laneBarrier }) { await barrier() }
    try await writeOnQueue(force: false)
    try syncStorage()
  }

  /// Writes the store's current state now, changed or not, and returns when it is durable.
  public func saveNow() async throws {
    try await writeOnQueue(force: true)
    try syncStorage()
  }

  private var laneBarrier: (@Sendable () async -> Void)?

  // MARK: - Wiring

  /// Starts saving the changes of `store` (called once, from the store's initializer).
  func start(store: Store<State>, errors: ErrorSink) {
    let core = store.core
    lock.withLock {
      reportTo = errors
      // Reads never make the store mirrored (a copy-on-write per action): the writer may wait
      // for a running step instead.
      readState = { core.committedState() }
      laneBarrier = { await core.lane.performAsync(.change) {} }
      lane = core.lane
    }
    switch restoreOutcome {
    case .discarded(let error, _), .refused(let error), .unreadable(let error): report(error)
    case .empty, .restored, .migrated: break
    }
    if case .coalesced = saving {
      let (stream, continuation) = AsyncStream<Void>.makeStream(
        bufferingPolicy: .bufferingNewest(1))
      // A strong reference: a weak one would give the controller a side table, and make every
      // reference count of it (one per step, through the hook below) take the slow path. The
      // cycle ends when `close()` (the store's deinit) finishes the stream and cancels the task.
      let task = Task {
        for await _ in stream {
          if await !self.writeWhenDue() { return }
        }
      }
      lock.withLock {
        signal = continuation
        writer = task
      }
    }
    // A strong reference (a weak one costs a side-table load per step): the cycle through the
    // store's core ends when `close()` removes the hook.
    let subscription = store.onEveryStep { _ in self.changed() }
    lock.withLock { self.subscription = subscription }
  }

  /// Stops observing and writes what is pending (the store is going away).
  @usableFromInline
  func close() {
    let (subscription, signal, writer) = lock.withLock {
      closed = true
      return (self.subscription, self.signal, self.writer)
    }
    subscription?.cancel()
    signal?.finish()
    writer?.cancel()
    writeQueue.sync { _ = writePending(force: false) }
    try? storage.synchronize()
  }

  // MARK: - Saving

  /// A committed change (on the lane).
  func changed() {
    let now = clock.ticks()
    latestChange.store(now, ordering: .releasing)
    // In an open window, recording the time is all (the writer reads it): no lock per step.
    if windowOpen.load(ordering: .acquiring) { return }
    changedOutsideAWindow(at: now)
  }

  /// ``changed()`` when no window is open: opens one (coalesced), or asks for the write
  /// (write-through). Kept apart so that the hot path above sets nothing up.
  @inline(never)
  private func changedOutsideAWindow(at now: Int64) {
    lock.lock()
    guard enabled, !closed else { return lock.unlock() }
    pending = true
    // Only the first change of a window wakes the writer; it reads the later ones itself.
    guard firstChange == nil else {
      lock.unlock()
      if writesThrough { writeThrough() }
      return
    }
    firstChange = PersistenceClock.duration(now)
    // Write-through writes after every step: it never has a window.
    if !writesThrough { windowOpen.store(true, ordering: .releasing) }
    let signal = self.signal
    lock.unlock()
    if writesThrough { writeThrough() } else { signal?.yield() }
  }

  /// Asks the lane to write the state before the waiting dispatch returns: after the item, or
  /// at the end of the drain for items nobody waits for, grouped with the other stores' writes
  /// into one backend transaction.
  private func writeThrough() {
    guard let lane = lock.withLock({ lane }) else { return }
    WriteThroughBatch.add(self, on: lane)
  }

  /// The lane of the store (write-through mode).
  private var lane: Lane?
  /// Whether the controller is in its lane's ``WriteThroughBatch`` (lane only).
  var awaitsWriteThrough = false

  private var writesThrough: Bool {
    if case .writeThrough = saving { return true }
    return false
  }

  /// Sleeps until the coalescing window of the pending change closes, then writes; returns
  /// `false` when the writer must stop.
  private func writeWhenDue() async -> Bool {
    guard case .coalesced(let debounce, let maxDelay) = saving else { return false }
    while true {
      let due = lock.withLock { () -> Duration? in
        guard pending, enabled, let firstChange else { return nil }
        let lastChange = PersistenceClock.duration(latestChange.load(ordering: .acquiring))
        return min(lastChange + debounce, firstChange + maxDelay)
      }
      guard let due else { return true }
      if due > clock.now() {
        do { try await clock.sleep(due) } catch { return false }
        continue
      }
      _ = try? await writeOnQueue(force: false)
      return true
    }
  }

  /// Runs a write on the write queue and waits for it without blocking a thread.
  private func writeOnQueue(force: Bool) async throws {
    let failure: PersistenceError? = await withCheckedContinuation { continuation in
      writeQueue.async { continuation.resume(returning: self.writePending(force: force)) }
    }
    if let failure { throw failure }
  }

  /// Writes the pending state (or, when `force`, the current one) on the write queue; returns
  /// the error, if the write failed. A failed write leaves the state pending.
  private func writePending(force: Bool) -> PersistenceError? {
    guard let prepared = prepareWrite(force: force) else { return nil }
    var failure: PersistenceError?
    switch prepared {
    case .failure(let error): failure = error
    case .success(let record):
      do {
        try storage.write([record])
      } catch {
        failure = .storage(key: key, operation: "write", underlying: error)
      }
    }
    finishWrite(failure)
    return failure
  }

  /// Takes the pending state (or, when `force`, the current one) out of its window and encodes
  /// it; `nil` when there is nothing to write.
  func prepareWrite(force: Bool) -> Result<PersistedRecord, PersistenceError>? {
    let read = lock.withLock { () -> (@Sendable () -> State)? in
      guard enabled || force, pending || force else { return nil }
      if case .refused = restoreOutcome { return nil }
      // The write leaves the window: changes from now on open the next one.
      pending = false
      firstChange = nil
      // Before the state is read (see `windowOpen`).
      windowOpen.store(false, ordering: .sequentiallyConsistent)
      return readState
    }
    guard let state = read?() else { return nil }
    do {
      if lock.withLock({ preserveBeforeWrite }) {
        try preserveUnreadRecord()
        lock.withLock { preserveBeforeWrite = false }
      }
      let data: Data
      do {
        data = try encoder.encode(state)
      } catch {
        throw PersistenceError.unencodable(key: key, underlying: error)
      }
      return .success(PersistedRecord(key: key, version: version, data: data, updatedAt: Date()))
    } catch let error as PersistenceError {
      return .failure(error)
    } catch {
      return .failure(.storage(key: key, operation: "write", underlying: error))
    }
  }

  /// Counts a write, or reports its failure and makes the state pending again.
  func finishWrite(_ failure: PersistenceError?) {
    let retry = lock.withLock { () -> AsyncStream<Void>.Continuation? in
      guard let failure else {
        writes += 1
        return nil
      }
      lastFailure = failure
      // Nothing is lost: the state is pending again, unless a newer one already is.
      guard !pending, enabled else { return nil }
      let now = clock.ticks()
      pending = true
      firstChange = PersistenceClock.duration(now)
      latestChange.store(now, ordering: .releasing)
      if !writesThrough { windowOpen.store(true, ordering: .releasing) }
      return writesThrough ? nil : signal
    }
    if let failure { report(failure) }
    retry?.yield()
  }

  /// Quarantines the record under the key, if any, before the first write after a restore
  /// that could not read it.
  private func preserveUnreadRecord() throws {
    let reason = "kept before the first save: the restore could not read it"
    do {
      if let record = try storage.read(key) {
        _ = try storage.quarantine(RecordEnvelope.encode(record), of: key, reason: reason)
      }
    } catch let PersistenceError.corrupt(_, bytes, _) {
      do {
        _ = try storage.quarantine(bytes, of: key, reason: reason)
      } catch {
        throw PersistenceError.storage(key: key, operation: "quarantine", underlying: error)
      }
    } catch {
      throw PersistenceError.storage(key: key, operation: "read", underlying: error)
    }
  }

  func syncStorage() throws {
    do {
      try storage.synchronize()
    } catch {
      let failure = PersistenceError.storage(key: key, operation: "synchronize", underlying: error)
      report(failure)
      throw failure
    }
  }

  private func report(_ error: PersistenceError) {
    let sink = lock.withLock {
      lastFailure = error
      return reportTo
    }
    sink?.report(ErrorEvent(error: error, action: nil, source: .persistence(key)))
  }

  // MARK: - Restoring

  private static func restore(_ key: PersistenceKey<State>) -> (State?, RestoreOutcome) {
    let fullKey = key.fullKey
    let record: PersistedRecord?
    do {
      record = try key.storage.read(fullKey)
    } catch let PersistenceError.corrupt(_, bytes, reason) {
      let error = PersistenceError.corrupt(key: fullKey, bytes: bytes, reason: reason)
      return (nil, discard(bytes, error: error, key: key))
    } catch {
      return (nil, .unreadable(.storage(key: fullKey, operation: "read", underlying: error)))
    }
    guard let record else { return (nil, .empty) }
    if record.version > key.version {
      return (
        nil,
        .refused(.newerVersion(key: fullKey, stored: record.version, supported: key.version))
      )
    }
    if record.version == key.version,
      let state = try? JSONDecoder().decode(State.self, from: record.data)
    {
      return (state, .restored(version: record.version))
    }
    var json: StateValue
    do {
      json = try JSONDecoder().decode(StateValue.self, from: record.data)
    } catch {
      let error = PersistenceError.corrupt(
        key: fullKey, bytes: record.data, reason: "the data is not JSON: \(error)")
      return (nil, discard(record, error: error, key: key))
    }
    for from in record.version..<key.version {
      guard let step = key.migrations[from] else {
        let error = PersistenceError.missingMigration(key: fullKey, from: from, to: from + 1)
        return (nil, discard(record, error: error, key: key))
      }
      do {
        try step(&json)
      } catch {
        let error = PersistenceError.migrationFailed(key: fullKey, from: from, underlying: error)
        return (nil, discard(record, error: error, key: key))
      }
    }
    do {
      let data = record.version == key.version ? record.data : try JSONEncoder().encode(json)
      let state = try JSONDecoder().decode(State.self, from: data)
      let outcome: RestoreOutcome =
        record.version == key.version
        ? .restored(version: record.version) : .migrated(from: record.version, to: key.version)
      return (state, outcome)
    } catch {
      let error = PersistenceError.undecodable(
        key: fullKey, version: record.version, underlying: error)
      return (nil, discard(record, error: error, key: key))
    }
  }

  /// Keeps a stored record that cannot be used under a quarantine key: whole, as stored (with
  /// its envelope's version and timestamp on the backends that store envelopes), so that
  /// nothing of it is lost.
  private static func discard(
    _ record: PersistedRecord, error: PersistenceError, key: PersistenceKey<State>
  ) -> RestoreOutcome {
    let stored = (key.storage as? any EnvelopeStorage).flatMap { try? $0.storedBytes(record.key) }
    return discard(stored ?? record.data, error: error, key: key)
  }

  /// Keeps bad bytes under a quarantine key.
  private static func discard(
    _ bytes: Data, error: PersistenceError, key: PersistenceKey<State>
  ) -> RestoreOutcome {
    let quarantined = try? key.storage.quarantine(
      bytes, of: key.fullKey, reason: error.description)
    return .discarded(error, quarantineKey: quarantined)
  }
}
