import Foundation

/// An action as a shared log keeps it: who dispatched it, under which stable name, and its
/// encoded value.
///
/// `origin` and `originSequence` identify the action across retries: a node numbers the actions
/// it dispatches, and a log keeps one entry per pair, so an action resubmitted after a crash or
/// a lost acknowledgement is applied once.
public struct SharedLogRecord: Sendable, Hashable, Codable {
  /// The node that dispatched the action.
  public var origin: String
  /// The action's number among its origin's actions, from 1.
  public var originSequence: UInt64
  /// The stable name the action type was registered under.
  public var name: String
  /// The encoded action.
  public var payload: Data

  /// Creates a record.
  public init(origin: String, originSequence: UInt64, name: String, payload: Data) {
    self.origin = origin
    self.originSequence = originSequence
    self.name = name
    self.payload = payload
  }
}

/// A record at its place in a shared log: its position (1, 2, 3… with no gap) and the action.
typealias SharedLogEntry = (sequence: UInt64, record: SharedLogRecord)

/// Where shared lanes take their order from: one database holding any number of lanes by name,
/// each a log with a single gap-free order, appended to by every node of that lane.
///
/// An engine guarantees, for each lane on its own:
/// - ``append(_:to:)`` adds its records as one batch, atomically, numbered right after the
///   entries already in the lane, from 1; a record whose origin and origin sequence are already
///   in the lane with the same name and payload is not added again, and its existing number is
///   returned (a retry); with another name or payload the whole batch is refused with
///   ``SharedLaneError/Kind/originConflict(origin:originSequence:sequence:)``;
/// - every reader sees a prefix of the same log: entries are never reordered, removed or
///   renumbered, and an entry is visible only with every entry before it.
///
/// There is no order across lanes. A lane exists once appended to; an idle lane costs nothing.
/// A lane name is 1 to 200 UTF-8 bytes; another throws
/// ``SharedLaneError/Kind/invalidLaneName(_:)``.
///
/// An engine also keeps snapshots of the states, per lane (see ``SharedSnapshot``), which a
/// lane whose stores are shared with ``SharedLane/share(_:as:)`` starts from and checks.
///
/// Errors are values: an engine that cannot be reached throws, and nothing is appended.
public protocol SharedLogEngine: Sendable {
  /// Appends `records` to `lane` in one batch and returns their sequence numbers, in order.
  func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64]

  /// The entries of `lane` after `sequence`, in order, at most `limit` of them: each record
  /// with its position in the log (1, 2, 3… with no gap).
  func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [(sequence: UInt64, record: SharedLogRecord)]

  /// The number of the last entry of `lane`, 0 for an empty lane.
  func head(of lane: String) async throws -> UInt64

  /// Returns once `lane` has an entry after `sequence`, after `timeout`, or once the calling
  /// task is cancelled, whichever comes first, without spinning. A node's follower waits up to
  /// 30 s at a time and stops by cancelling its wait, so a wait that ignores cancellation
  /// holds up ``SharedLane/stop()``.
  func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration) async throws

  /// Claims `node` in `lane` for this process until ``releaseNode(_:of:)`` or the process's
  /// death.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/nodeInUse(node:lane:)`` while
  ///   a live node holds that name.
  func claimNode(_ node: String, of lane: String) async throws

  /// Releases the claim ``claimNode(_:of:)`` took; does nothing without one.
  func releaseNode(_ node: String, of lane: String) async

  /// The snapshot of `lane` with the highest sequence number, if any.
  func latestSnapshot(of lane: String) async throws -> SharedSnapshot?

  /// The snapshot of `lane` after entry `sequence`, if one was saved.
  func snapshot(of lane: String, at sequence: UInt64) async throws -> SharedSnapshot?

  /// Saves `snapshot` in `lane`, unless one is saved at its sequence already (the first one
  /// stays: a node whose hash differs must see the difference, not overwrite it).
  func saveSnapshot(_ snapshot: SharedSnapshot, to lane: String) async throws
}

extension SharedLaneError {
  /// Throws ``Kind/invalidLaneName(_:)`` unless `lane` is 1 to 200 UTF-8 bytes.
  package static func check(lane: String, _ operation: String) throws {
    guard !lane.isEmpty, lane.utf8.count <= 200 else {
      throw SharedLaneError(.invalidLaneName(lane), operation: operation)
    }
  }
}

/// An engine's error that says whether another try would meet it again (a damaged or outdated
/// file, a refused permission) or may not (a busy file, a lost connection): a shared lane that
/// starts retries only the second kind.
package protocol LastingFailure: Error {
  /// Whether another try would fail the same way.
  var isLasting: Bool { get }
}
