/// A shared log in memory, shared by the nodes of one process: for tests, and for trying a
/// shared lane before choosing an engine. It keeps the ``SharedLogEngine`` contract; nothing
/// survives the process.
public actor InMemoryLogEngine: SharedSnapshotEngine {
  private var log: [SharedLogEntry] = []
  private var snapshots: [UInt64: SharedSnapshot] = [:]
  private var numbers: [String: [UInt64: UInt64]] = [:]
  private var waiters: [(after: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
  /// What the timeout of ``waitForEntries(after:timeout:)`` is measured on.
  private let clock: any Clock<Duration>

  /// An empty log.
  ///
  /// - Parameter clock: What the timeout of ``waitForEntries(after:timeout:)`` is measured on;
  ///   the continuous clock by default. Tests pass a test clock.
  public init(clock: any Clock<Duration> = ContinuousClock()) {
    self.clock = clock
  }

  public func append(_ records: [SharedLogRecord]) -> [UInt64] {
    var result: [UInt64] = []
    for record in records {
      if let existing = numbers[record.origin]?[record.originSequence] {
        result.append(existing)
        continue
      }
      let sequence = UInt64(log.count) + 1
      log.append(SharedLogEntry(sequence: sequence, record: record))
      numbers[record.origin, default: [:]][record.originSequence] = sequence
      result.append(sequence)
    }
    let head = UInt64(log.count)
    let ready = waiters.filter { $0.after < head }
    waiters.removeAll { $0.after < head }
    for waiter in ready { waiter.continuation.resume() }
    return result
  }

  public func entries(after sequence: UInt64, limit: Int) -> [SharedLogEntry] {
    guard limit > 0, sequence < UInt64(log.count) else { return [] }
    let start = Int(sequence)
    return Array(log[start..<min(log.count, start + limit)])
  }

  public func head() -> UInt64 { UInt64(log.count) }

  public func latestSnapshot() -> SharedSnapshot? {
    snapshots.keys.max().flatMap { snapshots[$0] }
  }

  public func snapshot(at sequence: UInt64) -> SharedSnapshot? { snapshots[sequence] }

  public func saveSnapshot(_ snapshot: SharedSnapshot) {
    if snapshots[snapshot.sequence] == nil { snapshots[snapshot.sequence] = snapshot }
  }

  public func waitForEntries(after sequence: UInt64, timeout: Duration) async {
    guard UInt64(log.count) <= sequence else { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { [clock] in try? await clock.sleep(for: timeout) }
      group.addTask { await self.waitForAppend(after: sequence) }
      await group.next()
      group.cancelAll()
      self.wakeAll(after: sequence)
    }
  }

  private func waitForAppend(after sequence: UInt64) async {
    await withCheckedContinuation { continuation in
      // A wait whose timeout came first is cancelled before `wakeAll(after:)`, on this actor: a
      // waiter that gets here after that must not stay, or the wait would last until an append.
      if UInt64(log.count) > sequence || Task.isCancelled {
        continuation.resume()
      } else {
        waiters.append((sequence, continuation))
      }
    }
  }

  /// Ends the waits for entries after `sequence` (the wait timed out).
  private func wakeAll(after sequence: UInt64) {
    let ready = waiters.filter { $0.after == sequence }
    waiters.removeAll { $0.after == sequence }
    for waiter in ready { waiter.continuation.resume() }
  }
}
