import Logging
import PostgresNIO
import Synchronization

/// The engine's connection to the server for appends and reads: opened on first use, opened
/// again after it was lost, closed for good by ``close()``.
///
/// The first connection also creates the log's tables (``LogSchema/setUp``). Every statement
/// the engine sends is a single statement in its own transaction, so appends and reads of
/// several tasks can share the connection (PostgresNIO queues them) without interleaving
/// transactions.
actor LogConnection {
  private let configuration: PostgresLogEngine.Configuration
  private var current: PostgresConnection?
  private var opening: Task<PostgresConnection, any Error>?
  private var schemaIsReady = false
  private var isClosed = false

  init(configuration: PostgresLogEngine.Configuration) {
    self.configuration = configuration
  }

  /// A no-op logger: the engine reports failures as thrown errors, not as log lines.
  static let logger = Logger(label: "sluice.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

  /// The open connection, or a new one.
  ///
  /// - Throws: ``PostgresLogError`` (``PostgresLogError/Kind/closed``) after ``close()``; the
  ///   connection's errors otherwise (a refused connection, a failed schema set-up).
  func connection(for operation: String) async throws -> PostgresConnection {
    if isClosed {
      throw PostgresLogError(.closed, operation: operation, endpoint: configuration.endpoint)
    }
    if let current, !current.isClosed { return current }
    current = nil
    let task: Task<PostgresConnection, any Error>
    if let opening {
      task = opening
    } else {
      let configuration = configuration
      let needsSchema = !schemaIsReady
      task = Task {
        let connection = try await Self.open(configuration)
        guard needsSchema else { return connection }
        do {
          try await connection.query(LogSchema.setUp, logger: Self.logger)
        } catch {
          await Self.close(connection)
          throw error
        }
        return connection
      }
      opening = task
    }
    do {
      let connection = try await withTaskCancellationHandler {
        try await task.value
      } onCancel: {
        task.cancel()
      }
      guard let adopted = adopt(connection, openedBy: task) else {
        throw PostgresLogError(.closed, operation: operation, endpoint: configuration.endpoint)
      }
      return adopted
    } catch {
      if opening == task { opening = nil }
      throw error
    }
  }

  /// Makes `connection`, opened by `task`, the current one; `nil` when the engine was closed
  /// meanwhile (the connection is then closed).
  private func adopt(
    _ connection: PostgresConnection, openedBy task: Task<PostgresConnection, any Error>
  ) -> PostgresConnection? {
    if opening == task { opening = nil }
    guard !isClosed else {
      Self.closeNow(connection)
      return nil
    }
    schemaIsReady = true
    if let current, !current.isClosed, current !== connection {
      Self.closeNow(connection)
      return current
    }
    current = connection
    return connection
  }

  /// Closes `connection` if it is the current one, so that the next operation opens another.
  ///
  /// A statement still running on it fails at once with a closed-connection error.
  func discard(_ connection: PostgresConnection) {
    guard let current, current === connection else { return }
    self.current = nil
    Self.closeNow(connection)
  }

  /// Closes the current connection, if any, so that the next operation opens another.
  func discardCurrent() {
    if let current { discard(current) }
  }

  /// Closes the current connection and stops opening new ones.
  func close() async {
    isClosed = true
    opening?.cancel()
    opening = nil
    if let current {
      self.current = nil
      await Self.close(current)
    }
  }

  deinit {
    opening?.cancel()
    if let current { Self.closeNow(current) }
  }

  /// Opens a connection with the engine's session settings.
  static func open(_ configuration: PostgresLogEngine.Configuration) async throws
    -> PostgresConnection
  {
    try await PostgresConnection.connect(
      configuration: configuration.connection,
      id: openedCount.wrappingAdd(1, ordering: .relaxed).newValue, logger: logger)
  }

  /// Closes `connection` and returns once its channel is closed.
  static func close(_ connection: PostgresConnection) async {
    closeNow(connection)
    try? await connection.closeFuture.get()
  }

  /// Closes `connection` without waiting, keeping it alive until its channel is closed
  /// (PostgresNIO requires that a connection is closed before it is released).
  static func closeNow(_ connection: PostgresConnection) {
    let closing: EventLoopFuture<Void> = connection.close()
    closing.whenComplete { _ in withExtendedLifetime(connection) {} }
  }

  /// Numbers connections for PostgresNIO's log metadata.
  private static let openedCount = Atomic<Int>(0)
}
