import PostgresNIO

extension PostgresLogError {
  /// The error the engine throws for `error`, a failure of PostgresNIO, SwiftNIO or the server,
  /// or of the engine itself (`operation` replaces its operation).
  init(_ error: any Error, operation: String, endpoint: String) {
    if let error = error as? PostgresLogError {
      self.init(
        error.kind, operation: operation, endpoint: endpoint, sqlState: error.sqlState,
        detail: error.detail, underlying: error.underlying)
      return
    }
    guard let error = error as? PSQLError else {
      let kind: Kind = error is PostgresDecodingError ? .unexpectedResponse : .unreachable
      self.init(
        kind, operation: operation, endpoint: endpoint, detail: String(describing: error),
        underlying: error)
      return
    }
    let sqlState = error.serverInfo?[.sqlState]
    let detail: String
    if let message = error.serverInfo?[.message] {
      detail = message
    } else if let underlying = error.underlying {
      detail = "\(error.code): \(underlying)"
    } else {
      detail = "\(error.code)"
    }
    self.init(
      Self.kind(of: error, sqlState: sqlState), operation: operation, endpoint: endpoint,
      sqlState: sqlState, detail: detail, underlying: error)
  }

  private static func kind(of error: PSQLError, sqlState: String?) -> Kind {
    switch error.code {
    case .server:
      guard let sqlState else { return .server }
      // Class 08: connection exceptions; 57P01-57P03: the server is shutting down, crashed,
      // or starting; 53300: too many connections.
      if sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState) {
        return .unreachable
      }
      // lock_not_available (lock_timeout), query_canceled (statement_timeout).
      if sqlState == "55P03" || sqlState == "57014" { return .timedOut }
      return .server
    case .clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown,
      .poolClosed:
      return .unreachable
    case .queryCancelled:
      return .timedOut
    default:
      return .server
    }
  }
}
