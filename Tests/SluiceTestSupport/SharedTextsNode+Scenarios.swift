@testable import Sluice

/// Scenarios of the shared lane's snapshots that every engine's tests run, each engine on its
/// own storage: the scenario runs, and the test checks what it returns.
extension SharedTextsNode {
  /// What ``startLater(on:)`` saw.
  public struct LaterStart: Sendable {
    /// The newest snapshot when the second node started.
    public let latest: SharedSnapshot?
    /// How many actions the second node reduced to catch up.
    public let reducedToCatchUp: Int
    /// Whether the second node's list equalled the first node's once it had started.
    public let caughtUp: Bool
    /// Both nodes' lists once each applied an action of the other.
    public let lists: [[String]]

    /// How the run differs from what a shared lane promises, in words; empty when it does not:
    /// the newest snapshot follows entry 100 and knows `first`'s actions up to it, the second
    /// node reduced only the 20 entries after it, and both nodes end with the same 122 texts.
    public var mismatches: [String] {
      var found: [String] = []
      if latest?.sequence != 100 || latest?.origins["first"] != 100 {
        found.append("the newest snapshot is \(String(describing: latest))")
      }
      if !caughtUp { found.append("the second node did not catch up") }
      if reducedToCatchUp != 20 { found.append("the second node reduced \(reducedToCatchUp)") }
      if lists.count != 2 || lists[0].count != 122 || lists[1] != lists[0] {
        found.append("the lists differ: \(lists)")
      }
      return found
    }
  }

  /// A node `first` appends 120 texts with a snapshot interval of 50 (a snapshot after entries
  /// 50 and 100), then a node `second` starts on a new engine, and each node sends one more
  /// text.
  ///
  /// - Parameter makeEngine: Opens the log; called once for each node and once for a look at
  ///   its snapshots.
  public static func startLater(
    on makeEngine: () throws -> some SharedLogEngine
  ) async throws -> LaterStart {
    let first = try SharedTextsNode(engine: try makeEngine(), name: "first", snapshotInterval: 50)
    try await first.lane.start()
    for index in 0..<120 { first.store.dispatch(Add("\(index)")) }
    try await first.lane.flush()
    let latest = try await makeEngine().latestSnapshot(of: "default")
    let second = try SharedTextsNode(
      engine: try makeEngine(), name: "second", snapshotInterval: 50)
    try await second.lane.start()
    let caughtUp = second.store.state == first.store.state
    let reduced = second.reducedCount
    try await second.lane.send(Add("from second"))
    try await first.lane.send(Add("from first"))
    try await second.lane.flush()
    let outcome = LaterStart(
      latest: latest, reducedToCatchUp: reduced, caughtUp: caughtUp,
      lists: [first.store.state, second.store.state])
    await first.lane.stop()
    await second.lane.stop()
    return outcome
  }

  /// Two nodes with a snapshot interval of 10 whose reducers differ on the text `17`: `a`
  /// sends 10 texts, `b` starts (from the snapshot after entry 10), and `a` dispatches 10
  /// more; returns, for each node that stopped within 10 s, the entry after which it found a
  /// difference (`nil` for a node that stopped for another reason).
  ///
  /// - Parameter makeEngine: Opens the log; called once for each node.
  public static func diverge(
    on makeEngine: () throws -> some SharedLogEngine
  ) async throws -> [UInt64?] {
    let a = try SharedTextsNode(engine: try makeEngine(), name: "a", snapshotInterval: 10)
    try await a.lane.start()
    for index in 0..<10 { try await a.lane.send(Add("\(index)")) }
    let b = try SharedTextsNode(
      engine: try makeEngine(), name: "b", snapshotInterval: 10, divergingAt: "17")
    try await b.lane.start()
    for index in 10..<20 { a.store.dispatch(Add("\(index)")) }
    // Whichever node saves the snapshot after entry 20 first, the other one sees the
    // difference; the first one goes on.
    _ = await eventually { a.lane.stopReason != nil || b.lane.stopReason != nil }
    // A flush returns once its node applied the entries after 20, so passed its check there,
    // or throws once it stopped.
    for node in [a, b] { try? await node.lane.flush() }
    await a.lane.stop()
    await b.lane.stop()
    return [a, b].compactMap(\.lane.stopReason).map { reason in
      guard case .divergence(let sequence, let expected, let found) = reason.kind,
        expected != found
      else { return nil }
      return sequence
    }
  }
}
