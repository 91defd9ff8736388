import Foundation

/// A store shared for snapshots: how to read its state as JSON, and how to replace it.
struct SharedPart: Sendable {
  let encode: @Sendable () throws -> Data
  let restore: @Sendable (Data) throws -> Void
}

/// The loop that applies a shared log on a node's lane, in order, and checks or saves a
/// snapshot every `interval` entries.
struct SharedFollower: Sendable {
  let engine: any SharedLogEngine
  /// The lane's name in the engine.
  let name: String
  let outbox: SharedOutbox
  let progress: SharedProgress
  let lane: Lane
  let parts: [String: SharedPart]
  let interval: UInt64
  /// What the pause before a retry waits on (the lane's clock).
  let clock: any Clock<Duration>

  /// The most entries a node applies in one step of its lane.
  static var batchLimit: Int { 1_024 }
  /// The longest the follower waits for the engine to say the log grew before it looks itself:
  /// a net for a wake-up an engine missed, not the way entries arrive. An idle node wakes this
  /// often; at 1 s, 10,000 idle lanes in one process took 43 % of a core.
  static var longestWait: Duration { .seconds(30) }

  /// The engine's snapshots, when stores are shared.
  var snapshots: (any SharedLogEngine)? { parts.isEmpty ? nil : engine }

  /// The engine's snapshots, when the node checks and saves them every `interval` entries.
  var checkedSnapshots: (any SharedLogEngine)? { interval == 0 ? nil : snapshots }

  /// Restores the newest snapshot that holds every shared store, if any; returns the entry it
  /// follows and each node's highest origin sequence up to it.
  func restoreLatest() async throws -> (sequence: UInt64, origins: [String: UInt64]) {
    guard let snapshots, let latest = try await snapshots.latestSnapshot(of: name),
      parts.keys.allSatisfy({ latest.states[$0] != nil })
    else { return (0, [:]) }
    let parts = self.parts
    let failure = await lane.performAsync(.change) { () -> (any Error)? in
      do {
        for (name, part) in parts {
          if let data = latest.states[name] { try part.restore(data) }
        }
        return nil
      } catch {
        return error
      }
    }
    if let error = failure ?? nil { throw SharedLaneError(.unusableSnapshot("\(error)")) }
    return (latest.sequence, latest.origins)
  }

  /// Applies the log after `start` in order, waiting for new entries; stops at an entry it
  /// cannot apply, or at a snapshot whose hash differs. The entries up to `replaying` were in
  /// the log when the node started: their effects ran when they were first applied. When it
  /// ends, `keeping` holds each node's highest origin sequence up to the last entry applied,
  /// where a restarted run goes on.
  func run(
    from start: UInt64, origins: [String: UInt64], replaying: UInt64,
    keeping kept: Guarded<[String: UInt64]?>
  ) async {
    var applied = start
    var origins = origins
    defer { kept.withLock { $0 = origins } }
    if let own = origins[outbox.node] { outbox.noteOwn(own) }
    progress.advance(to: applied)
    var failures = 0
    while !Task.isCancelled {
      do {
        let limit =
          checkedSnapshots == nil
          ? Self.batchLimit : min(Self.batchLimit, Int(clamping: interval - applied % interval))
        let entries = try await engine.entries(of: name, after: applied, limit: limit)
        failures = 0
        guard !entries.isEmpty else {
          try await engine.waitForEntries(of: name, after: applied, timeout: Self.longestWait)
          continue
        }
        let (batch, failure) = decode(entries, after: applied, replaying: replaying)
        if !batch.isEmpty {
          let lane = self.lane
          await lane.performAsync(.change) { lane.applyShared(batch) }
          for entry in entries.prefix(batch.count) {
            origins[entry.record.origin] = max(
              origins[entry.record.origin] ?? 0, entry.record.originSequence)
          }
          applied += UInt64(batch.count)
          progress.advance(to: applied)
          do {
            if let divergence = try await checkSnapshot(at: applied, origins: origins) {
              return stop(divergence)
            }
          } catch {
            // The snapshot waits for the next interval; the log goes on.
            outbox.report(error, action: nil)
          }
        }
        if let failure { return stop(failure) }
      } catch let failure as SharedLaneError {
        // An entry the engine cannot decode: a retry would find it again.
        return stop(failure)
      } catch {
        if Task.isCancelled { return }
        if failures == 0 { outbox.report(error, action: nil) }
        failures += 1
        try? await clock.sleep(for: SharedLane.pause(after: failures))
      }
    }
  }

  /// The actions of `entries` up to the first that cannot be applied, and why that one cannot.
  private func decode(
    _ entries: [SharedLogEntry], after applied: UInt64, replaying: UInt64
  ) -> ([(action: any Action, node: String, runsEffects: Bool)], SharedLaneError?) {
    var batch: [(action: any Action, node: String, runsEffects: Bool)] = []
    // One decoder for the batch: making one costs more than decoding a small action.
    let decoder = JSONDecoder()
    for entry in entries {
      let expected = applied + UInt64(batch.count) + 1
      guard entry.sequence == expected else {
        let reason = "the engine returned entry \(entry.sequence) in its place"
        return (batch, SharedLaneError(.undecodableEntry(sequence: expected, reason: reason)))
      }
      do {
        let mine = entry.record.origin == outbox.node
        batch.append(
          (
            try outbox.actions.decode(entry, with: decoder), entry.record.origin,
            mine && entry.sequence > replaying
          ))
        if mine { outbox.noteOwn(entry.record.originSequence) }
      } catch let error as SharedLaneError {
        return (batch, error)
      } catch {
        let reason = "\(error)"
        return (batch, SharedLaneError(.undecodableEntry(sequence: expected, reason: reason)))
      }
    }
    return (batch, nil)
  }

  /// At a multiple of the interval: compares this node's states with the snapshot saved
  /// there, saving one first when there is none; returns the divergence, if any.
  private func checkSnapshot(
    at sequence: UInt64, origins: [String: UInt64]
  ) async throws -> SharedLaneError? {
    guard let snapshots = checkedSnapshots, sequence % interval == 0 else { return nil }
    var states: [String: Data] = [:]
    for (name, part) in parts { states[name] = try part.encode() }
    var saved = try await snapshots.snapshot(of: name, at: sequence)
    if saved == nil {
      try await snapshots.saveSnapshot(
        SharedSnapshot(sequence: sequence, states: states, origins: origins), to: name)
      // Another node may have saved one since the look: the first one stays, and it is the one
      // to compare with (otherwise two nodes that both found none would both miss a
      // difference).
      saved = try await snapshots.snapshot(of: name, at: sequence)
    }
    guard let saved else { return nil }
    let shared = Set(saved.states.keys).intersection(states.keys)
    let theirs = SharedSnapshot.hash(of: saved.states.filter { shared.contains($0.key) })
    let ours = SharedSnapshot.hash(of: states.filter { shared.contains($0.key) })
    guard theirs == ours else {
      return SharedLaneError(.divergence(sequence: sequence, expected: theirs, found: ours))
    }
    return nil
  }

  private func stop(_ failure: SharedLaneError) {
    outbox.report(failure, action: nil)
    progress.stop(failure)
  }
}
