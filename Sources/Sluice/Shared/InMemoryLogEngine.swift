/// Shared logs in memory, any number of lanes by name, shared by the nodes of one process: for
/// tests, and for trying a shared lane before choosing an engine. It keeps the
/// ``SharedLogEngine`` contract; nothing survives the process.
public actor InMemoryLogEngine: SharedLogEngine {
  /// One lane's log.
  private struct LaneLog {
    var log: [SharedLogEntry] = []
    var snapshots: [UInt64: SharedSnapshot] = [:]
    /// Each origin's entries, by origin sequence.
    var numbers: [String: [UInt64: UInt64]] = [:]
    var head: UInt64 { UInt64(log.count) }

    /// Appends `records` after the last entry.
    mutating func add(_ records: [SharedLogRecord]) {
      for record in records {
        let sequence = head + 1
        log.append((sequence, record))
        numbers[record.origin, default: [:]][record.originSequence] = sequence
      }
    }
  }

  /// A wait for an entry of `lane` after `after`.
  private struct Waiter {
    let lane: String
    let after: UInt64
    let continuation: CheckedContinuation<Void, Never>
  }

  private var lanes: [String: LaneLog] = [:]
  private var waiters: [Waiter] = []
  /// The claimed nodes, as lane and node name.
  private var claims: Set<[String]> = []
  /// What the timeout of ``waitForEntries(of:after:timeout:)`` is measured on.
  private let clock: any Clock<Duration>

  /// An engine with no lane.
  ///
  /// - Parameter clock: What the timeout of ``waitForEntries(of:after:timeout:)`` is measured
  ///   on; the continuous clock by default. Tests pass a test clock.
  public init(clock: any Clock<Duration> = ContinuousClock()) {
    self.clock = clock
  }

  public func append(_ records: [SharedLogRecord], to lane: String) throws -> [UInt64] {
    try SharedLaneError.check(lane: lane, "append to the shared log")
    let current = lanes[lane] ?? LaneLog()
    // Numbers first, so that a conflict appends none of the batch.
    var result: [UInt64] = []
    var added: [SharedLogRecord] = []
    var addedNumbers: [String: [UInt64: UInt64]] = [:]
    for record in records {
      guard
        let sequence = current.numbers[record.origin]?[record.originSequence]
          ?? addedNumbers[record.origin]?[record.originSequence]
      else {
        added.append(record)
        let number = current.head + UInt64(added.count)
        addedNumbers[record.origin, default: [:]][record.originSequence] = number
        result.append(number)
        continue
      }
      let existing =
        sequence > current.head
        ? added[Int(sequence - current.head - 1)] : current.log[Int(sequence - 1)].record
      guard existing.name == record.name, existing.payload == record.payload else {
        throw SharedLaneError(
          .originConflict(
            origin: record.origin, originSequence: record.originSequence, sequence: sequence),
          operation: "append to the shared log")
      }
      result.append(sequence)
    }
    guard !added.isEmpty else { return result }
    lanes[lane, default: LaneLog()].add(added)
    let head = lanes[lane]?.head ?? 0
    let ready = waiters.filter { $0.lane == lane && $0.after < head }
    waiters.removeAll { $0.lane == lane && $0.after < head }
    for waiter in ready { waiter.continuation.resume() }
    return result
  }

  public func entries(of lane: String, after sequence: UInt64, limit: Int)
    -> [(sequence: UInt64, record: SharedLogRecord)]
  {
    guard limit > 0, let log = lanes[lane]?.log, sequence < UInt64(log.count) else { return [] }
    let start = Int(sequence)
    return Array(log[start..<min(log.count, start + limit)])
  }

  public func head(of lane: String) -> UInt64 { lanes[lane]?.head ?? 0 }

  public func claimNode(_ node: String, of lane: String) throws {
    try SharedLaneError.check(lane: lane, "claim a node name")
    guard claims.insert([lane, node]).inserted else {
      throw SharedLaneError(.nodeInUse(node: node, lane: lane), operation: "claim a node name")
    }
  }

  public func releaseNode(_ node: String, of lane: String) {
    claims.remove([lane, node])
  }

  public func latestSnapshot(of lane: String) -> SharedSnapshot? {
    guard let snapshots = lanes[lane]?.snapshots else { return nil }
    return snapshots.keys.max().flatMap { snapshots[$0] }
  }

  public func snapshot(of lane: String, at sequence: UInt64) -> SharedSnapshot? {
    lanes[lane]?.snapshots[sequence]
  }

  public func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) throws {
    try SharedLaneError.check(lane: lane, "save a snapshot")
    if lanes[lane]?.snapshots[snapshot.sequence] == nil {
      lanes[lane, default: LaneLog()].snapshots[snapshot.sequence] = snapshot
    }
  }

  public func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration) async {
    guard head(of: lane) <= sequence else { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { [clock] in try? await clock.sleep(for: timeout) }
      group.addTask { await self.waitForAppend(to: lane, after: sequence) }
      await group.next()
      group.cancelAll()
      self.wakeAll(of: lane, after: sequence)
    }
  }

  private func waitForAppend(to lane: String, after sequence: UInt64) async {
    await withCheckedContinuation { continuation in
      // A wait whose timeout came first is cancelled before `wakeAll(of:after:)`, on this
      // actor: a waiter that gets here after that must not stay, or the wait would last until
      // an append.
      if head(of: lane) > sequence || Task.isCancelled {
        continuation.resume()
      } else {
        waiters.append(Waiter(lane: lane, after: sequence, continuation: continuation))
      }
    }
  }

  /// Ends the waits for entries of `lane` after `sequence` (the wait timed out).
  private func wakeAll(of lane: String, after sequence: UInt64) {
    let ready = waiters.filter { $0.lane == lane && $0.after == sequence }
    waiters.removeAll { $0.lane == lane && $0.after == sequence }
    for waiter in ready { waiter.continuation.resume() }
  }
}
