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
  /// - Throws: `SharedLogError` (`.nodeInUse`) when this engine or another session holds it;
  ///   ``PostgresLogError`` when the server cannot be reached.
  func claim(_ node: String, of lane: String, operation: String, endpoint: String) async throws {
    let claim = Claim(node: node, lane: lane)
    while true {
      _ = try await ready(operation, endpoint: endpoint)
      let connection = state.withLock { state -> PostgresConnection? in
        state.claims.contains(claim) ? nil : state.connection
      }
      guard let connection else {
        if state.withLock({ $0.claims.contains(claim) }) {
          throw SharedLogError(.nodeInUse(node: node, lane: lane), operation: operation)
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
        throw SharedLogError(.nodeInUse(node: node, lane: lane), operation: operation)
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
        throw SharedLogError(.nodeInUse(node: node, lane: lane), operation: operation)
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
    // Its row is read: a row stream left unread breaks the connection for PostgresNIO.
    _ = try? await Self.take(
      LogSchema.release(node, of: lane), on: connection, logger: configuration.logger)
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
    let query: PostgresQuery = "SELECT pg_advisory_unlock_all()::text IS NULL"
    _ = try? await Self.take(query, on: connection, logger: configuration.logger)
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

  /// Takes the claims the engine holds again, on a new connection; those another session took
  /// meanwhile are lost. A claim the engine's previous session still holds (the server has not
  /// seen it end yet: a terminated session still exiting, a connection the network cut) is
  /// taken over: that session is ended, and the claim waited for (at most `lock_timeout`).
  func retake(on connection: PostgresConnection) async throws {
    let logger = configuration.logger
    var current: Session?
    for try await (pid, start) in try await connection.query(LogSchema.session, logger: logger)
      .decode((Int32, String).self)
    {
      current = Session(pid: pid, start: start)
    }
    let (claims, previous) = state.withLock { state in
      defer { state.session = current }
      return (state.claims, state.session)
    }
    for claim in claims {
      let (node, lane) = (claim.node, claim.lane)
      if try await Self.take(LogSchema.claim(node, of: lane), on: connection, logger: logger) {
        continue
      }
      if let previous {
        let query = LogSchema.claim(node, of: lane, from: previous.pid, started: previous.start)
        do {
          if try await Self.take(query, on: connection, logger: logger) { continue }
        } catch let error as PSQLError where error.code == .server {
          // Refused (`lock_timeout`, no right to end the session): lost.
        }
      }
      logger.error(
        "sluice: another node took this node's name while the server was away",
        metadata: ["node": "\(claim.node)", "lane": "\(claim.lane)"])
      state.withLock { state in
        if state.claims.remove(claim) != nil { state.lost.insert(claim) }
      }
    }
  }
}
