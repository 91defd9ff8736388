import Logging
import PostgresNIO
import Sluice

/// The engine's connections for appends and reads: a PostgresNIO `PostgresClient` (a pool that
/// opens connections on demand, replaces lost ones and closes idle ones), run by a task the
/// pool owns until ``close()``.
///
/// The client retries a refused connection after a pause that grows to a minute, and fails
/// every lease for as long once it has failed for a minute. So when the engine's listening
/// connection (``LogListener``) sees the server come back after an outage, the engine
/// ``renew()``s the pool: a new client, which connects at once, replaces the old one.
final class LogPool: Sendable {
  private struct Current {
    var client: PostgresClient
    var runner: Task<Void, Never>
  }

  private let configuration: PostgresClient.Configuration
  private let logger: Logger
  private let current: Guarded<Current?>

  /// Starts a pool for `configuration`'s server; it opens no connection until the first
  /// operation.
  init(configuration: PostgresLogEngine.Configuration) {
    self.configuration = configuration.client
    self.logger = configuration.logger
    self.current = Guarded(Self.start(configuration.client, logger: configuration.logger))
  }

  deinit {
    current.withLock { $0?.runner.cancel() }
  }

  /// Runs `body` with a connection of the pool.
  ///
  /// - Throws: ``PostgresLogError`` (``PostgresLogError/Kind/closed``) after ``close()``; what
  ///   the pool and `body` throw otherwise.
  func withConnection<Result: Sendable>(
    _ operation: String, endpoint: String,
    _ body: @Sendable (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    guard let client = current.withLock({ $0?.client }) else {
      throw PostgresLogError(.closed, operation: operation, endpoint: endpoint)
    }
    return try await client.withConnection { connection in try await body(connection) }
  }

  /// Replaces the client with a new one, which connects at once instead of waiting out the
  /// old one's back-off; operations on the old one end as its connections close.
  func renew() {
    let old = current.withLock { current -> Current? in
      guard let old = current else { return nil }
      current = Self.start(configuration, logger: logger)
      return old
    }
    old?.runner.cancel()
  }

  /// Stops the pool and returns once its connections are closed; later operations throw
  /// ``PostgresLogError/Kind/closed``.
  func close() async {
    let old = current.withLock { current in
      defer { current = nil }
      return current
    }
    guard let old else { return }
    old.runner.cancel()
    await old.runner.value
  }

  private static func start(_ configuration: PostgresClient.Configuration, logger: Logger)
    -> Current
  {
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    return Current(client: client, runner: Task { await client.run() })
  }
}
