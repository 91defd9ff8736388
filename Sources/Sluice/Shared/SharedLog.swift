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

/// A record at its place in a shared log.
public struct SharedLogEntry: Sendable, Hashable {
  /// The entry's position in the log: 1, 2, 3… with no gap.
  public var sequence: UInt64
  /// The action.
  public var record: SharedLogRecord

  /// Creates an entry.
  public init(sequence: UInt64, record: SharedLogRecord) {
    self.sequence = sequence
    self.record = record
  }
}

/// Where shared lanes take their order from: one database holding any number of lanes by name,
/// each a log with a single gap-free order, appended to by every node of that lane.
///
/// An engine guarantees, for each lane on its own:
/// - ``append(_:to:)`` adds its records as one batch, atomically, numbered right after the
///   entries already in the lane, from 1; a record whose origin and origin sequence are already
///   in the lane with the same name and payload is not added again, and its existing number is
///   returned (a retry); with another name or payload the whole batch is refused with
///   ``SharedLogError/Kind/originConflict(origin:originSequence:sequence:)``;
/// - every reader sees a prefix of the same log: entries are never reordered, removed or
///   renumbered, and an entry is visible only with every entry before it.
///
/// There is no order across lanes. A lane exists once appended to; an idle lane costs nothing.
/// A lane name is 1 to 200 UTF-8 bytes; another throws
/// ``SharedLogError/Kind/invalidLaneName(_:)``.
///
/// Errors are values: an engine that cannot be reached throws, and nothing is appended.
public protocol SharedLogEngine: Sendable {
  /// Appends `records` to `lane` in one batch and returns their sequence numbers, in order.
  func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64]

  /// The entries of `lane` after `sequence`, in order, at most `limit` of them.
  func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [SharedLogEntry]

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
  /// - Throws: ``SharedLogError`` of kind ``SharedLogError/Kind/nodeInUse(node:lane:)`` while a
  ///   live node holds that name.
  func claimNode(_ node: String, of lane: String) async throws

  /// Releases the claim ``claimNode(_:of:)`` took; does nothing without one.
  func releaseNode(_ node: String, of lane: String) async
}

/// Why a shared log refused an operation.
public struct SharedLogError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// A sequence number does not fit the engine's storage (SQLite and PostgreSQL keep signed
    /// 64-bit integers).
    case numberOutOfRange(UInt64)
    /// An append found `origin`'s action `originSequence` already in the lane, at `sequence`,
    /// with another name or payload: two nodes used one name, or a node reused a number. None
    /// of the batch was appended.
    case originConflict(origin: String, originSequence: UInt64, sequence: UInt64)
    /// A live node holds the name `node` in `lane` already.
    case nodeInUse(node: String, lane: String)
    /// A lane name that is empty or longer than 200 UTF-8 bytes.
    case invalidLaneName(String)
  }

  /// What went wrong.
  public let kind: Kind
  /// What the engine was doing.
  public let operation: String

  /// Creates an error.
  public init(_ kind: Kind, operation: String) {
    self.kind = kind
    self.operation = operation
  }

  /// What went wrong, in one sentence.
  public var description: String {
    switch kind {
    case .numberOutOfRange(let number):
      "could not \(operation): \(number) is larger than the largest number a log stores "
        + "(\(Int64.max))"
    case .originConflict(let origin, let originSequence, let sequence):
      "could not \(operation): action \(originSequence) of node '\(origin)' is in the lane "
        + "already, at \(sequence), as another action (two live nodes share a name, or a node "
        + "reused a number)"
    case .nodeInUse(let node, let lane):
      "could not \(operation): a live node is named '\(node)' in lane '\(lane)' already"
    case .invalidLaneName(let name):
      "could not \(operation): the lane name '\(name)' is empty or longer than 200 UTF-8 bytes"
    }
  }

  /// Throws ``Kind/invalidLaneName(_:)`` unless `lane` is 1 to 200 UTF-8 bytes.
  package static func check(lane: String, _ operation: String) throws {
    guard !lane.isEmpty, lane.utf8.count <= 200 else {
      throw SharedLogError(.invalidLaneName(lane), operation: operation)
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
