import Logging
import PostgresNIO
import Sluice

/// The claims on node names: session advisory locks on the listening connection, which the
/// server releases when the session ends, a dead process's included; taken again each time the
/// connection opens.
extension LogListener {
  /// Claims `node` in `lane` for the connection's session, until ``release(_:of:)`` or the
  /// session's end.
  ///
  /// - Throws: `SharedLaneError` (`.nodeInUse`) when this engine or another session holds it;
  ///   ``PostgresLogError`` when the server cannot be reached.
  func claim(_ node: String, of lane: String, operation: String, endpoint: String) async throws {
    let claim = Claim(node: node, lane: lane)
    let since = attempt
    while true {
      _ = try await ready(operation, endpoint: endpoint, since: since)
      let connection = state.withLock { state -> PostgresConnection? in
        state.claims.contains(claim) ? nil : state.connection
      }
      guard let connection else {
        if state.withLock({ $0.claims.contains(claim) }) {
          throw SharedLaneError(.nodeInUse(node: node, lane: lane), operation: operation)
        }
        continue  // The connection went between the two looks: wait for the next one.
      }
      let taken: Bool
      do {
        taken = try await Self.take(
          LogSchema.claim(node, of: lane), on: connection, logger: configuration.logger)
      } catch {
        throw PostgresLogError(error, operation: operation, endpoint: endpoint)
      }
      guard taken else {
        throw SharedLaneError(.nodeInUse(node: node, lane: lane), operation: operation)
      }
      let isFresh = state.withLock { state in
        state.lost.remove(claim)
        return state.claims.insert(claim).inserted
      }
      guard isFresh else {
        // Another node of this engine took the name meanwhile, on the same session. A session
        // counts its advisory locks: this one is given back, or the name would stay held after
        // that node releases it.
        _ = try? await Self.take(
          LogSchema.release(node, of: lane), on: connection, logger: configuration.logger)
        throw SharedLaneError(.nodeInUse(node: node, lane: lane), operation: operation)
      }
      return
    }
  }

  /// Gives `node`'s claim in `lane` back; nothing when the engine does not hold it.
  func release(_ node: String, of lane: String) async {
    let claim = Claim(node: node, lane: lane)
    let connection = state.withLock { state -> PostgresConnection? in
      // The node is gone: its lane's quiet with it.
      state.lanes[lane]?.quiet = nil
      Self.forgetIfIdle(lane, &state)
      state.lost.remove(claim)
      return state.claims.remove(claim) == nil ? nil : state.connection
    }
    guard let connection else { return }
    await give(LogSchema.release(node, of: lane), on: connection)
  }

  /// Gives every claim back at once, before the engine closes: the server would release them
  /// only once it saw the session end.
  func releaseAll() async {
    let connection = state.withLock { state -> PostgresConnection? in
      defer {
        state.claims.removeAll()
        state.lost.removeAll()
      }
      return state.claims.isEmpty ? nil : state.connection
    }
    guard let connection else { return }
    await give("SELECT pg_advisory_unlock_all()::text IS NULL", on: connection)
  }

  /// Gives claims back with `query` on `connection`, within the engine's timeout; past it, or
  /// when it fails, closes the connection, which ends the session and so its claims (the
  /// listener then opens a new one and takes again the claims it still holds).
  private func give(_ query: PostgresQuery, on connection: PostgresConnection) async {
    let deadline = configuration.clock.deadline(after: configuration.timeout)
    // Its row is read: a row stream left unread breaks the connection for PostgresNIO.
    let given = try? await deadline.bound { [configuration] in
      try await Self.take(query, on: connection, logger: configuration.logger)
    }
    if given == nil { Self.closeNow(connection) }
  }

  /// Whether the engine held `node` in `lane` and lost it to another session while its
  /// connection was down.
  func isLost(_ node: String, of lane: String) -> Bool {
    state.withLock { $0.lost.contains(Claim(node: node, lane: lane)) }
  }

  /// Takes a claim on `connection` with `query` (``LogSchema/claim(_:of:)``): whether it did.
  private static func take(
    _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger
  ) async throws -> Bool {
    var taken = false
    for try await row in try await connection.query(query, logger: logger) {
      taken = try row.decode(Bool.self)
    }
    return taken
  }

  /// Takes the claims the engine holds again, on a new connection; those another session holds
  /// are lost. A claim one of the engine's earlier listening sessions may still hold (the server
  /// has not seen it end: a terminated session still exiting, a connection the network cut, an
  /// attempt given up at its deadline) is taken over: each of those sessions the server still
  /// runs is ended and waited for, within the engine's timeout. A claim another session holds is
  /// never waited for: that wait would outlast the attempt's deadline, attempt after attempt.
  func retake(on connection: PostgresConnection) async throws {
    let logger = configuration.logger
    var current: Session?
    for try await (pid, start) in try await connection.query(LogSchema.session, logger: logger)
      .decode((Int32, String).self)
    {
      current = Session(pid: pid, start: start)
    }
    let (claims, earlier) = state.withLock { state in
      // Noted first: this session holds claims as soon as it takes one.
      defer { state.sessions += current.map { [$0] } ?? [] }
      return (state.claims, state.sessions)
    }
    for claim in claims {
      let (node, lane) = (claim.node, claim.lane)
      if try await Self.take(LogSchema.claim(node, of: lane), on: connection, logger: logger) {
        continue
      }
      let query = LogSchema.claim(
        node, of: lane, ending: earlier,
        within: PostgresLogEngine.Configuration.milliseconds(configuration.timeout))
      do {
        if try await Self.take(query, on: connection, logger: logger) { continue }
      } catch let error as PSQLError where error.code == .server {
        // Refused (`statement_timeout`, no right to end the session): lost.
      }
      logger.error(
        "sluice: another node took this node's name while the server was away",
        metadata: ["node": "\(claim.node)", "lane": "\(claim.lane)"])
      state.withLock { state in
        if state.claims.remove(claim) != nil { state.lost.insert(claim) }
      }
    }
    // Every claim is on this session, or lost: the earlier sessions hold none.
    state.withLock { $0.sessions.removeAll(where: earlier.contains) }
  }
}
