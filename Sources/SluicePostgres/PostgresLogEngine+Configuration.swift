import Foundation
import Logging
import PostgresNIO

extension PostgresLogEngine {
  /// Where a ``PostgresLogEngine`` finds its server, and how long it waits for it.
  ///
  /// ```swift
  /// let log = PostgresLogEngine(
  ///   configuration: .init(
  ///     host: "db.internal", user: "lane", password: secret, database: "orders",
  ///     timeout: .seconds(5)))
  /// let other = PostgresLogEngine(
  ///   configuration: try .init(url: "postgres://lane@db.internal/orders?sslmode=verify-full"))
  /// ```
  public struct Configuration: Sendable {
    /// The server's host name or IP address.
    var host: String
    /// The server's TCP port.
    var port: Int
    /// The role the engine logs in as.
    var user: String
    /// The role's password, or `nil` when the server trusts the connection.
    var password: String?
    /// The database that holds the log's tables.
    var database: String
    /// Whether the connections use TLS, and what they check of the server's certificate:
    /// `TLS.prefer` by default, as libpq.
    var tls: TLS
    /// The longest time an operation may take, connecting included; past it, the operation
    /// throws ``PostgresLogError/Kind/timedOut``.
    ///
    /// The server gets the same bound as `statement_timeout` and `lock_timeout`, so a node
    /// that waits this long for the log's head gives up on the server too.
    var timeout: Duration
    /// The name the engine's connections show in `pg_stat_activity`.
    var applicationName: String
    /// The clock the engine's deadlines, polling pauses and reconnection pauses follow: the
    /// continuous clock by default; a test passes one it advances itself.
    ///
    /// The server's bounds (`statement_timeout`, `lock_timeout`) and the time allowed to
    /// connect follow the server's and the network's own clocks, not this one.
    var clock: any Clock<Duration>
    /// Where the engine and PostgresNIO report what happens beside the operations' results: the
    /// listening connection lost and back, connections that fail. A `Logger` labelled
    /// `sluice.postgres` at level `warning` by default, which writes where the app's logging
    /// system does: the connection attempts of an outage, logged at `info` and `notice`, do not
    /// flood it; pass a logger of the app's at a lower level to see them.
    var logger: Logger

    /// How the connections use TLS, as libpq's `sslmode` names the choices.
    ///
    /// Only ``verifyCA(rootCertificates:)`` and ``verifyFull(rootCertificates:)`` check the
    /// server's certificate: the others protect against a listener on the network, not against
    /// a server that poses as the right one. Give `verifyFull` a host name, not an IP address:
    /// the name is what it checks the certificate against.
    public enum TLS: Sendable, Hashable {
      /// Plain TCP (`sslmode=disable`).
      case disable
      /// TLS when the server offers it, plain TCP otherwise, no certificate check
      /// (`sslmode=prefer`, the default).
      case prefer
      /// TLS or no connection, no certificate check (`sslmode=require`).
      case require
      /// TLS, with a certificate signed by a trusted authority, whatever name it bears
      /// (`sslmode=verify-ca`).
      ///
      /// - Parameter rootCertificates: A PEM file of the authorities to trust
      ///   (`sslrootcert`), or `nil` for the system's.
      case verifyCA(rootCertificates: String?)
      /// TLS, with a certificate signed by a trusted authority for the server's host name
      /// (`sslmode=verify-full`).
      ///
      /// - Parameter rootCertificates: A PEM file of the authorities to trust
      ///   (`sslrootcert`), or `nil` for the system's.
      case verifyFull(rootCertificates: String?)
    }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address.
    ///   - port: The server's TCP port.
    ///   - user: The role the engine logs in as.
    ///   - password: The role's password, or `nil` when the server trusts the connection.
    ///   - database: The database that holds the log's tables.
    ///   - tls: Whether the connections use TLS.
    ///   - timeout: The longest time an operation may take, connecting included; past it, the
    ///     operation throws ``PostgresLogError/Kind/timedOut``. The server gets the same bound as
    ///     `statement_timeout` and `lock_timeout`, so a node that waits this long for the log's
    ///     head gives up on the server too.
    ///   - applicationName: The name the connections show in `pg_stat_activity`.
    ///   - clock: The clock the engine's deadlines, polling pauses and reconnection pauses
    ///     follow: the continuous clock by default; a test passes one it advances itself. The
    ///     server's bounds and the time allowed to connect follow the server's and the
    ///     network's own clocks, not this one.
    ///   - logger: Where the engine and PostgresNIO report what happens beside the operations'
    ///     results: the listening connection lost and back, connections that fail. A `Logger`
    ///     labelled `sluice.postgres` at level `warning` by default, which writes where the app's
    ///     logging system does; pass a logger of the app's at a lower level to see the
    ///     connection attempts of an outage (`info` and `notice`).
    public init(
      host: String, port: Int = 5432, user: String, password: String? = nil, database: String,
      tls: TLS = .prefer, timeout: Duration = .seconds(10), applicationName: String = "sluice",
      clock: any Clock<Duration> = ContinuousClock(),
      logger: Logger = Configuration.defaultLogger
    ) {
      self.host = host
      self.port = port
      self.user = user
      self.password = password
      self.database = database
      self.tls = tls
      self.timeout = timeout
      self.applicationName = applicationName
      self.clock = clock
      self.logger = logger
    }

    /// Reads a configuration from a `postgres://` (or `postgresql://`) URL.
    ///
    /// The URL names the user, the password (percent-encoded), the host, the port (5432 when
    /// absent) and the database (the user's name when absent). As for libpq, `sslmode` is
    /// `disable`, `prefer` (the default), `require`, `verify-ca` or `verify-full` (``TLS``),
    /// and `sslrootcert=PATH` names the authorities the last two trust (the system's when
    /// absent); `application_name=NAME` names the connections.
    ///
    /// ```swift
    /// let configuration = try PostgresLogEngine.Configuration(
    ///   url: "postgres://lane:secret@db.internal:5432/orders?sslmode=verify-full")
    /// ```
    ///
    /// - Parameters:
    ///   - url: The server's address.
    ///   - timeout: The longest time an operation may take, as for
    ///     ``init(host:port:user:password:database:tls:timeout:applicationName:clock:logger:)``.
    ///   - clock: The clock the engine's deadlines and pauses follow.
    ///   - logger: Where the engine reports what happens beside the operations' results.
    /// - Throws: ``PostgresLogError`` with kind ``PostgresLogError/Kind/invalidURL`` when the
    ///   URL has no host or user, another scheme, or an unknown `sslmode`.
    public init(
      url: String, timeout: Duration = .seconds(10),
      clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Configuration.defaultLogger
    ) throws {
      func invalid(_ detail: String) -> PostgresLogError {
        PostgresLogError(
          .invalidURL, operation: "read the server's address", endpoint: url, detail: detail)
      }
      guard let components = URLComponents(string: url),
        let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
      else { throw invalid("expected postgres://user@host:port/database") }
      guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
      guard let user = components.user, !user.isEmpty else { throw invalid("no user") }
      let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : ""
      let query = components.queryItems ?? []
      func parameter(_ name: String) -> String? {
        query.first { $0.name == name }?.value
      }
      let roots = parameter("sslrootcert")
      let tls: TLS
      switch parameter("sslmode") ?? "prefer" {
      case "disable": tls = .disable
      case "prefer": tls = .prefer
      case "require": tls = .require
      case "verify-ca": tls = .verifyCA(rootCertificates: roots)
      case "verify-full": tls = .verifyFull(rootCertificates: roots)
      case let mode:
        throw invalid(
          "unknown sslmode \(mode): use disable, prefer, require, verify-ca or verify-full")
      }
      self.init(
        host: host, port: components.port ?? 5432, user: user,
        password: components.password, database: path.isEmpty ? user : path, tls: tls,
        timeout: timeout, applicationName: parameter("application_name") ?? "sluice",
        clock: clock, logger: logger)
    }

    /// The logger of a configuration made without one: `sluice.postgres`, at level `warning`.
    @usableFromInline static var defaultLogger: Logger {
      var logger = Logger(label: "sluice.postgres")
      logger.logLevel = .warning
      return logger
    }

    /// The server, as errors and messages name it: `host:port/database`, without the user and
    /// the password.
    public var endpoint: String { "\(host):\(port)/\(database)" }

    /// PostgresNIO's configuration for the listening connection.
    ///
    /// - Throws: NIOSSL's error when the TLS context cannot be made (a root certificate file
    ///   that cannot be read).
    var connection: PostgresConnection.Configuration {
      get throws {
        let tls: PostgresConnection.Configuration.TLS =
          switch (self.tls, tlsConfiguration) {
          case (.disable, _), (_, nil): .disable
          case (.prefer, let configuration?):
            .prefer(try NIOSSLContext(configuration: configuration))
          case (_, let configuration?): .require(try NIOSSLContext(configuration: configuration))
          }
        var connection = PostgresConnection.Configuration(
          host: host, port: port, username: user, password: password, database: database, tls: tls)
        connection.options.connectTimeout = .milliseconds(Self.milliseconds(timeout))
        connection.options.additionalStartupParameters = sessionSettings
        return connection
      }
    }

    /// PostgresNIO's configuration for the pool of connections that append and read.
    var client: PostgresClient.Configuration {
      let tls: PostgresClient.Configuration.TLS =
        switch (self.tls, tlsConfiguration) {
        case (.disable, _), (_, nil): .disable
        case (.prefer, let configuration?): .prefer(configuration)
        case (_, let configuration?): .require(configuration)
        }
      var client = PostgresClient.Configuration(
        host: host, port: port, username: user, password: password, database: database, tls: tls)
      client.options.connectTimeout = .milliseconds(Self.milliseconds(timeout))
      client.options.additionalStartupParameters = sessionSettings
      return client
    }

    /// NIOSSL's settings for ``tls``; `nil` for ``TLS/disable``.
    private var tlsConfiguration: TLSConfiguration? {
      var configuration = TLSConfiguration.makeClientConfiguration()
      switch tls {
      case .disable:
        return nil
      case .prefer, .require:
        configuration.certificateVerification = .none
      case .verifyCA(let roots):
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = roots.map { .file($0) } ?? .default
      case .verifyFull(let roots):
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = roots.map { .file($0) } ?? .default
      }
      return configuration
    }

    /// The session settings of every connection, which let a vanished node release what it
    /// holds.
    private var sessionSettings: [(String, String)] {
      let bound = Self.milliseconds(timeout)
      return [
        ("application_name", applicationName),
        // The log's numbering relies on each statement seeing what was committed before it.
        ("default_transaction_isolation", "read committed"),
        ("statement_timeout", "\(bound)"),
        ("lock_timeout", "\(bound)"),
        ("idle_in_transaction_session_timeout", "10000"),
        // The server probes an idle client after 10 s and drops it 15 s later.
        ("tcp_keepalives_idle", "10"),
        ("tcp_keepalives_interval", "5"),
        ("tcp_keepalives_count", "3"),
      ]
    }

    /// `duration` in whole milliseconds, from 1 to the largest timeout the server takes
    /// (`Int32.max` milliseconds, about 24 days).
    static func milliseconds(_ duration: Duration) -> Int64 {
      let largest = Int64(Int32.max)
      let (seconds, attoseconds) = duration.components
      guard seconds >= 0 else { return 1 }
      guard seconds < largest / 1_000 else { return largest }
      return min(max(seconds * 1_000 + attoseconds / 1_000_000_000_000_000, 1), largest)
    }
  }
}
