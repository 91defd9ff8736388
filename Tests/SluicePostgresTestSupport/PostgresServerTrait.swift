import Testing

/// Runs a suite with a server of its own: started once before its first test, stopped and
/// removed after its last one; the suite's tests find it in ``PostgresServer/current``.
///
/// Without PostgreSQL, the suite is skipped with a message saying so, except on CI
/// (`CI=true`), where starting the server fails the suite.
public struct PostgresServerTrait: SuiteTrait, TestScoping {
  /// The trait applies to the suite only: its tests share the server.
  public var isRecursive: Bool { false }

  /// Starts the server, runs the suite with it, then stops and removes it.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let server = try await PostgresServer.start()
    do {
      try await PostgresServer.$current.withValue(server) { try await function() }
    } catch {
      await server.remove()
      throw error
    }
    await server.remove()
  }
}

extension Trait where Self == PostgresServerTrait {
  /// A server of the suite's own, for its tests.
  public static var postgresServer: Self { PostgresServerTrait() }
}

extension Trait where Self == ConditionTrait {
  /// Skips a suite that needs PostgreSQL on a machine without it, unless on CI.
  public static var requiresPostgres: Self {
    .enabled(
      if: PostgresServer.isAvailable,
      """
      PostgreSQL is not installed (no initdb/pg_ctl on PATH, in $PG_BIN or in \
      /usr/lib/postgresql/*/bin): install postgresql to run these tests
      """)
  }
}

extension PostgresServer {
  /// The server of the running suite.
  @TaskLocal public static var current: PostgresServer?

  /// The server of the running suite, or an error outside a suite with
  /// ``PostgresServerTrait``.
  public static var required: PostgresServer {
    get throws {
      guard let current else {
        throw Failure(description: "the suite has no `.postgresServer` trait")
      }
      return current
    }
  }
}
