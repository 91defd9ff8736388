import Foundation
import PostgresNIO
import Sluice

/// A shared log in a PostgreSQL database: nodes on several machines that use the same database
/// share one lane's order through it.
///
/// Each append is one statement, a call of a server-side function that locks the lane's head
/// row (`SELECT … FOR UPDATE` on `sluice_lane_head`), adds the batch's new records numbered right
/// after the head and moves the head, all in one transaction; once it committed, the engine
/// notifies `sluice_log` with the lane's name, in a statement of its own. The row
/// lock makes appenders take turns, so commit order is number order and every reader sees a
/// gap-free prefix of the log; the `UNIQUE (origin, origin_sequence)` constraint backs up the
/// rule that a record already in the log keeps its number.
///
/// ```swift
/// let log = PostgresLogEngine(configuration: try .init(url: "postgres://lane@db.internal/orders"))
/// let numbers = try await log.append([record], to: "orders")
/// try await log.waitForEntries(of: "orders", after: lastSeen, timeout: .seconds(30))
/// let entries = try await log.entries(of: "orders", after: lastSeen, limit: 500)
/// await log.close()
/// ```
///
/// The engine connects on first use and creates the tables when they are missing. It keeps one
/// connection that listens for appends (and tells whether the server is there), and a pool of
/// connections for appends and reads (PostgresNIO's `PostgresClient`: opened on demand, closed
/// after a minute idle). Every operation is bounded by the configuration's `timeout` (on its
/// `clock`); an unreachable server, a lost connection or a slow answer is a
/// thrown ``PostgresLogError``, at once when the server refuses connections. An operation whose
/// listening connection was lost meanwhile is tried again on a new one once the engine listens
/// again, within its timeout (for an append, that is safe: a record already in the log keeps
/// its number). When the server is back after an outage, the engine
/// listens again and renews its pool at once, so appends and wake-ups resume within a round trip
/// or two.
///
/// The engine keeps the shared lane's snapshots too, in the same database
/// (``latestSnapshot(of:)``, ``snapshot(of:at:)``, ``saveSnapshot(_:to:)``).
///
/// A node that vanishes in the middle of an append holds nothing: the append is one statement,
/// which the server runs to its end or rolls back. The sessions also set
/// `idle_in_transaction_session_timeout`, `statement_timeout`, `lock_timeout` and TCP
/// keepalives.
public final class PostgresLogEngine: SharedLogEngine {
  // Sendable: immutable; `LogPool` and `LogListener` are Sendable.
  /// Where the server is, and how long an operation may take.
  let configuration: Configuration
  private let pool: LogPool
  private let listener: LogListener

  /// The longest pause between two looks at the log in ``waitForEntries(of:after:timeout:)`` while
  /// the listening connection is down.
  static var longestPoll: Duration { .milliseconds(50) }

  /// Creates an engine for the log in `configuration`'s database.
  ///
  /// Nothing is sent to the server yet: the first operation connects, and creates the log's
  /// tables when they are missing.
  ///
  /// - Parameter configuration: Where the server is, and how long an operation may take.
  public init(configuration: Configuration) {
    let pool = LogPool(configuration: configuration)
    self.configuration = configuration
    self.pool = pool
    self.listener = LogListener(configuration: configuration) { pool.renew() }
  }

  deinit {
    listener.stop()
  }

  /// Gives back the node names the engine claimed and closes its connections; later operations
  /// throw ``PostgresLogError`` with kind ``PostgresLogError/Kind/closed``, and waits in
  /// progress return.
  public func close() async {
    await listener.releaseAll()
    listener.stop()
    await pool.close()
  }

  /// Appends `records` to `lane` in one batch and returns their sequence numbers, in order.
  ///
  /// New records are numbered right after the lane's last entry, in the batch's order; a record
  /// whose origin and origin sequence are already in the lane with the same name and payload,
  /// or earlier in the batch, gets that entry's number and is not added again.
  ///
  /// - Parameters:
  ///   - records: The batch.
  ///   - lane: The lane's name.
  /// - Returns: Each record's number in the lane.
  /// - Throws: ``PostgresLogError`` when the server cannot be reached or does not answer in
  ///   time (the batch may then have been appended: appending it again returns its numbers);
  ///   `SharedLaneError` for an origin sequence larger than `Int64.max`
  ///   (`.numberOutOfRange`), an origin sequence in the lane with another name or payload
  ///   (`.originConflict`), a record whose origin is a node name this engine claimed and another
  ///   session took while the server was away (`.nodeInUse`), or a lane name that is empty or
  ///   longer than 200 bytes (`.invalidLaneName`); nothing is appended then.
  /// - Complexity: One round trip to the server.
  public func append(_ records: [SharedLogRecord], to lane: String) async throws -> [UInt64] {
    let operation = "append to the shared log"
    try SharedLaneError.check(lane: lane, operation)
    guard !records.isEmpty else { return [] }
    // Whatever the outcome: this engine's reads of the lane ask the server again.
    defer { listener.disturb(lane) }
    let originSequences = try records.map { try Self.column($0.originSequence) }
    let query = LogSchema.append(
      to: lane, origins: records.map(\.origin), originSequences: originSequences,
      names: records.map(\.name), payloads: records.map { ByteBuffer(bytes: $0.payload) })
    let stored = try await run(operation) { [listener] connection in
      // Checked once the listening connection is up: it takes the claims again as it opens.
      if let lost = records.first(where: { listener.isLost($0.origin, of: lane) }) {
        throw SharedLaneError(.nodeInUse(node: lost.origin, lane: lane), operation: operation)
      }
      var numbers: [Int64]?
      do {
        for try await row in try await connection.query(query, logger: self.configuration.logger) {
          numbers = try row.decode([Int64]?.self)
        }
      } catch let error as PSQLError where error.serverInfo?[.sqlState] == LogSchema.originConflict
      {
        throw try self.originConflict(error, records, operation)
      }
      // After the commit: a notification inside the append would hold every append of the
      // server until its flush (LogSchema). When the connection is lost here, the append is
      // tried again, finds its records and notifies. Its row is read: a row stream left
      // unread breaks the connection for PostgresNIO.
      let notified = try await connection.query(
        LogSchema.notify(lane), logger: self.configuration.logger)
      for try await _ in notified {}
      return numbers
    }
    guard let stored, stored.count == records.count else {
      throw unexpected(operation, "the append returned no number for some records")
    }
    return try stored.map { try number($0, operation) }
  }

  /// The entries of `lane` after `sequence`, in order, at most `limit` of them.
  ///
  /// A lane a wait of this engine found quiet (no entry after `sequence`, no notification of
  /// the lane and no change of the listening connection since) is answered without a query: an
  /// entry another engine appends shows here once its notification arrived, as it wakes the
  /// waits. This engine's own appends show at once.
  ///
  /// - Throws: ``PostgresLogError`` when the server cannot be reached or does not answer in
  ///   time, or `SharedLaneError` for a `sequence` larger than `Int64.max` or an invalid lane
  ///   name.
  public func entries(of lane: String, after sequence: UInt64, limit: Int) async throws
    -> [(sequence: UInt64, record: SharedLogRecord)]
  {
    let operation = "read the shared log"
    try SharedLaneError.check(lane: lane, operation)
    guard limit > 0, !listener.isQuiet(lane, after: sequence) else { return [] }
    let query = LogSchema.entries(of: lane, after: try Self.column(sequence), limit: Int64(limit))
    let rows = try await run(operation) { connection in
      var rows: [(Int64, String, Int64, String, Data)] = []
      let result = try await connection.query(query, logger: self.configuration.logger)
      for try await row in result.decode((Int64, String, Int64, String, Data).self) {
        rows.append(row)
      }
      return rows
    }
    return try rows.map { number, origin, originSequence, name, payload in
      (
        sequence: try self.number(number, operation),
        record: SharedLogRecord(
          origin: origin, originSequence: try self.number(originSequence, operation), name: name,
          payload: payload)
      )
    }
  }

  /// The number of `lane`'s last entry, 0 for a lane with none.
  ///
  /// - Throws: ``PostgresLogError`` when the server cannot be reached or does not answer in
  ///   time, or `SharedLaneError` for an invalid lane name.
  public func head(of lane: String) async throws -> UInt64 {
    let operation = "read the shared log"
    try SharedLaneError.check(lane: lane, operation)
    let query = LogSchema.head(of: lane)
    let head = try await run(operation) { connection in
      var head: Int64 = 0
      for try await row in try await connection.query(query, logger: self.configuration.logger) {
        head = try row.decode(Int64.self)
      }
      return head
    }
    return try number(head, operation)
  }

  /// Returns once `lane` has an entry after `sequence`, or after `timeout`, whichever comes
  /// first, without spinning.
  ///
  /// The wait listens for the notifications appends send (`LISTEN sluice_log`, on the engine's
  /// one listening connection, each naming its lane), so an append by another node wakes it
  /// within a round trip, and appends to other lanes do not. It looks at the lane's head once;
  /// while the listening connection is up, it then waits for a notification of the lane. The
  /// engine remembers that head until a notification of the lane or a change of that
  /// connection, so the next wait and read of an idle lane ask nothing of the server.
  /// Notifications are not durable, so the wait looks at once when that connection is lost or
  /// back, and while it is down, looks again after 1 ms, then twice as long each time, up to
  /// 50 ms. The timeout and the pauses follow the configuration's `clock`.
  ///
  /// - Throws: ``PostgresLogError`` when the server cannot be reached, `SharedLaneError` for an
  ///   invalid lane name, or `CancellationError` when the task is cancelled.
  public func waitForEntries(of lane: String, after sequence: UInt64, timeout: Duration)
    async throws
  {
    try SharedLaneError.check(lane: lane, "wait for the shared log")
    let deadline = configuration.clock.deadline(after: timeout)
    var pause = Duration.milliseconds(1)
    listener.watch(lane)
    defer { listener.unwatch(lane) }
    while true {
      let token = listener.observe(lane)
      if !listener.isQuiet(lane, after: sequence) {
        let head = try await head(of: lane)
        if head > sequence { return }
        listener.noteQuiet(lane, head: head, since: token)
      }
      let remaining = deadline.remaining()
      guard remaining > .zero else { return }
      // While listening, a notification of the lane or a change of the connection ends the
      // wait; while not, a look after a pause.
      let most = token.isListening ? remaining : min(pause, remaining)
      await listener.wait(after: token, lane: lane, atMost: most)
      try Task.checkCancellation()
      if !token.isListening { pause = min(pause * 2, Self.longestPoll) }
    }
  }

  /// Claims `node` in `lane` for this engine until ``releaseNode(_:of:)``, the engine's close
  /// or its process's death: a session advisory lock on the listening connection, which the
  /// server releases when the session ends.
  ///
  /// When the listening connection is lost and opened again, the engine takes its claims
  /// again; when another node took one meanwhile, that node's appends throw
  /// `SharedLaneError` (`.nodeInUse`).
  ///
  /// - Throws: `SharedLaneError` (`.nodeInUse`) while a live node, of this engine or another,
  ///   holds the name; ``PostgresLogError`` when the server cannot be reached.
  public func claimNode(_ node: String, of lane: String) async throws {
    let operation = "claim a node name"
    try SharedLaneError.check(lane: lane, operation)
    let endpoint = configuration.endpoint
    let deadline = configuration.clock.deadline(after: configuration.timeout)
    let claimed: Void? = try await deadline.bound { [listener] in
      try await listener.claim(node, of: lane, operation: operation, endpoint: endpoint)
    }
    guard claimed != nil else { throw timedOut(operation) }
  }

  /// Gives back the claim ``claimNode(_:of:)`` took; nothing when the engine does not hold it.
  public func releaseNode(_ node: String, of lane: String) async {
    await listener.release(node, of: lane)
  }

  /// The `originConflict` error for the server's `error`, whose detail is the record's place in
  /// the batch (from 1) and the entry's number.
  private func originConflict(
    _ error: PSQLError, _ records: [SharedLogRecord], _ operation: String
  ) throws -> SharedLaneError {
    let parts = (error.serverInfo?[.detail] ?? "").split(separator: " ")
    guard parts.count == 2, let place = Int(parts[0]), records.indices.contains(place - 1),
      let sequence = UInt64(parts[1])
    else {
      throw unexpected(operation, "an origin conflict without its record and entry")
    }
    let record = records[place - 1]
    return SharedLaneError(
      .originConflict(
        origin: record.origin, originSequence: record.originSequence, sequence: sequence),
      operation: operation)
  }

  /// Runs `body` on a connection of the pool within the timeout, once the listening connection
  /// is up: again each time the listening connection was lost meanwhile, and once more when the
  /// server could not be reached.
  func run<Result: Sendable>(
    _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    let deadline = configuration.clock.deadline(after: configuration.timeout)
    var attempt = 1
    var pause = Duration.milliseconds(1)
    while true {
      let failure: PostgresLogError
      do {
        return try await bounded(operation, until: deadline, body)
      } catch is LostConnection {
        // The listener opened its connection again (or tries to): wait for it, within the
        // deadline, however often a cut network drops it meanwhile; after a pause, so that a
        // pool that fails at once is not asked again and again meanwhile.
        let remaining = deadline.remaining()
        guard remaining > .zero else {
          throw PostgresLogError(
            .unreachable, operation: operation, endpoint: configuration.endpoint,
            detail: "the connection to the server was lost")
        }
        try await configuration.clock.pause(for: min(pause, remaining))
        pause = min(pause * 2, Self.longestPoll)
        continue
      } catch let error as PostgresLogError {
        failure = error
      } catch let error as SharedLaneError {
        throw error
      } catch is CancellationError {
        throw CancellationError()
      } catch {
        failure = PostgresLogError(error, operation: operation, endpoint: configuration.endpoint)
      }
      guard failure.kind == .unreachable, attempt < 2, deadline.remaining() > .zero else {
        throw failure
      }
      attempt += 1
    }
  }

  /// How a bounded operation ended.
  private enum Outcome<Result: Sendable>: Sendable {
    case ready(UInt64)
    case done(Result)
    case late
    case lost
  }

  /// Runs `body` once the listening connection is up. Throws ``PostgresLogError/Kind/timedOut``
  /// at `deadline`, or `LostConnection` when the listening connection or the pool's connection
  /// is lost meanwhile (``LogListener/untilLost(after:)``).
  ///
  /// A statement still running then is left behind (``abandoning(_:)``), with its connection:
  /// the server ends it at its own bound (`statement_timeout`, the engine's timeout), and one
  /// that PostgresNIO dropped never ends. Its connection is not closed: PostgresNIO's pool
  /// (1.33) can stop handing out connections after a leased one was closed under it, which
  /// stalled every later operation of the engine.
  private func bounded<Result: Sendable>(
    _ operation: String, until deadline: Deadline,
    _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    let endpoint = configuration.endpoint
    let since = listener.attempt
    let outcome = try await withThrowingTaskGroup(of: Outcome<Result>.self) {
      group -> Outcome<Result>? in
      group.addTask { [listener] in
        .ready(try await listener.ready(operation, endpoint: endpoint, since: since))
      }
      group.addTask {
        try await deadline.sleep()
        return .late
      }
      defer { group.cancelAll() }
      guard case .ready(let attempt)? = try await group.next() else { return Outcome.late }
      group.addTask { [listener] in
        await listener.untilLost(after: attempt)
        return .lost
      }
      group.addTask { [pool] in
        do {
          return .done(
            try await abandoning {
              try await pool.withConnection(operation, endpoint: endpoint, body)
            })
        } catch let error as PostgresLogError where error.kind == .unreachable {
          // The pool's connection was lost (a cut network closes them all): as when the
          // listening connection was.
          return .lost
        }
      }
      return try await group.next()
    }
    switch outcome {
    case .done(let result)?:
      return result
    case .late?, .ready?:
      throw timedOut(operation)
    case .lost?, nil:
      throw LostConnection()
    }
  }

  /// A number as PostgreSQL stores it (a signed 64-bit integer).
  static func column(_ number: UInt64) throws -> Int64 {
    guard let value = Int64(exactly: number) else {
      throw SharedLaneError(.numberOutOfRange(number), operation: "use the shared log")
    }
    return value
  }

  /// A number the server sent, which a log never makes negative.
  func number(_ value: Int64, _ operation: String) throws -> UInt64 {
    guard let number = UInt64(exactly: value) else {
      throw unexpected(operation, "a negative number (\(value))")
    }
    return number
  }

  /// The error of an operation that got no answer within the timeout.
  private func timedOut(_ operation: String) -> PostgresLogError {
    PostgresLogError(
      .timedOut, operation: operation, endpoint: configuration.endpoint,
      detail: "no answer within \(configuration.timeout)")
  }

  func unexpected(_ operation: String, _ detail: String) -> PostgresLogError {
    PostgresLogError(
      .unexpectedResponse, operation: operation, endpoint: configuration.endpoint, detail: detail)
  }
}

/// An operation's listening connection was lost while it ran (``LogListener/untilLost(after:)``):
/// it tries again once the listener is up, within its deadline.
private struct LostConnection: Error {}
