import Foundation

/// Why a ``PostgresLogEngine`` could not append to or read its log.
///
/// Match on ``kind``; the ``description`` says what the engine was doing, on which server
/// (`host:port/database`), and the server's message or the network error.
///
/// Every failure of the server, of the network or of the engine's own timeout is a thrown
/// `PostgresLogError`, never a crash or a hang. The engine reconnects by itself: once the
/// server is back, the next operation opens a new connection.
///
/// An append that fails with ``Kind/unreachable`` or ``Kind/timedOut`` may have been committed
/// just before the connection was lost. Appending the same records again is safe: the log keeps
/// one entry per origin and origin sequence, so a retry returns the numbers the first attempt
/// got.
///
/// ```swift
/// do {
///   let numbers = try await log.append(records, to: "orders")
/// } catch let error as PostgresLogError where error.kind == .unreachable {
///   print("the server is away, keep the records in the outbox: \(error)")
/// }
/// ```
public struct PostgresLogError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  ///
  /// ```swift
  /// if error.kind == .timedOut { /* the server or the network is slow; try again later */ }
  /// ```
  public enum Kind: Sendable, Hashable {
    /// The server could not be reached, or the connection to it was lost (refused, closed,
    /// terminated by an administrator, a server restarting).
    case unreachable
    /// The operation did not finish within the engine's timeout
    /// (the configuration's `timeout`): a server or a network that does not
    /// answer, or the log's head locked by another node for that long.
    case timedOut
    /// The server refused a statement; ``PostgresLogError/sqlState`` says why.
    case server
    /// The server's answer does not fit the log (a missing row, a number out of range): the
    /// tables were changed by something other than a log engine.
    case unexpectedResponse
    /// The engine was closed (``PostgresLogEngine/close()``).
    case closed
    /// The connection URL cannot be read
    /// (``PostgresLogEngine/Configuration/init(url:timeout:clock:logger:)``).
    case invalidURL
  }

  /// What went wrong.
  public let kind: Kind
  /// What the engine was doing, as a verb phrase: `"append to the shared log"` (in the
  /// description).
  let operation: String
  /// The server the engine talks to, as `host:port/database` (in the description).
  let endpoint: String
  /// The server's SQLSTATE code (``Kind/server``, or a connection terminated by the server),
  /// for example `"42P01"`.
  public let sqlState: String?
  /// Details in words: the server's message, or the network error (in the description).
  let detail: String?
  /// The error behind this one (a PostgresNIO `PSQLError`, a SwiftNIO error), when there is one.
  public let underlying: (any Error)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - kind: What went wrong.
  ///   - operation: What the engine was doing.
  ///   - endpoint: The server, as `host:port/database`.
  ///   - sqlState: The server's SQLSTATE code, when it sent one.
  ///   - detail: Details in words.
  ///   - underlying: The error behind this one.
  init(
    _ kind: Kind, operation: String, endpoint: String, sqlState: String? = nil,
    detail: String? = nil, underlying: (any Error)? = nil
  ) {
    self.kind = kind
    self.operation = operation
    self.endpoint = endpoint
    self.sqlState = sqlState
    self.detail = detail
    self.underlying = underlying
  }

  /// What went wrong, in one sentence.
  public var description: String {
    let reason =
      switch kind {
      case .unreachable: "the server at \(endpoint) cannot be reached"
      case .timedOut: "the server at \(endpoint) did not answer in time"
      case .server: "the server at \(endpoint) refused it"
      case .unexpectedResponse: "the server at \(endpoint) sent an answer the log cannot use"
      case .closed: "the engine for \(endpoint) is closed"
      case .invalidURL: "the address is not a postgres:// URL"
      }
    var text = "could not \(operation): \(reason)"
    if let sqlState { text += " (SQLSTATE \(sqlState))" }
    if let detail, !detail.isEmpty { text += ": \(detail)" }
    return text
  }
}
