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

/// Where a shared lane takes its order from: one log with a single gap-free order, appended to
/// by every node.
///
/// An engine guarantees that:
/// - ``append(_:)`` adds its records as one batch, atomically, numbered right after the entries
///   already in the log; a record whose origin and origin sequence are already in the log is
///   not added again, and its existing number is returned;
/// - every reader sees a prefix of the same log: entries are never reordered, removed or
///   renumbered, and an entry is visible only with every entry before it.
///
/// Errors are values: an engine that cannot be reached throws, and nothing is appended.
public protocol SharedLogEngine: Sendable {
  /// Appends `records` in one batch and returns their sequence numbers, in order.
  func append(_ records: [SharedLogRecord]) async throws -> [UInt64]

  /// The entries after `sequence`, in order, at most `limit` of them.
  func entries(after sequence: UInt64, limit: Int) async throws -> [SharedLogEntry]

  /// The number of the last entry, 0 for an empty log.
  func head() async throws -> UInt64

  /// Returns once the log has an entry after `sequence`, or after `timeout`, whichever comes
  /// first, without spinning.
  func waitForEntries(after sequence: UInt64, timeout: Duration) async throws
}

/// Why a shared log refused an operation.
public struct SharedLogError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// A sequence number does not fit the engine's storage (SQLite and PostgreSQL keep signed
    /// 64-bit integers).
    case numberOutOfRange(UInt64)
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
    }
  }
}
