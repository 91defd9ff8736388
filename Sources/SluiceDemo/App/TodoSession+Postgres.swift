#if Postgres
  import Foundation
  import Sluice
  import SluicePostgres
  import SluiceSQLite

  extension TodoSession {
    /// Opens the list on a lane whose log is in the PostgreSQL database at `url`.
    static func open(
      postgres url: String, mode: SQLiteStorage.Mode
    ) async throws(DemoError) -> TodoSession {
      let configuration: PostgresLogEngine.Configuration
      do {
        configuration = try PostgresLogEngine.Configuration(url: url)
      } catch {
        // The URL as given, but never its password.
        var shown = URLComponents(string: url)
        if shown?.password != nil { shown?.password = "xxxxx" }
        let place = shown?.string ?? "the --postgres URL"
        throw .cannotUseDatabase(place: place, reason: DemoError.cause(of: error))
      }
      // The address without the user and the password, for messages.
      let place = "postgres://\(configuration.endpoint)"
      let engine = PostgresLogEngine(configuration: configuration)
      do {
        let (lane, todos) = try sharedList(on: engine, mode: mode)
        // A lane that starts during an outage waits for the server; a command says so at once.
        _ = try await engine.head(of: lane.lane)
        try await lane.start()
        var session = TodoSession(place: place, path: nil, todos: todos, lane: lane)
        session.closeDatabase = { await engine.close() }
        return session
      } catch {
        await engine.close()
        // Only reads so far: nothing of this command is in the log.
        if DemoError.isOutage(error) { throw .serverUnreachable(place: place) }
        throw .cannotUseDatabase(place: place, reason: DemoError.cause(of: error))
      }
    }
  }

  extension DemoError {
    /// Whether `error` says the PostgreSQL server cannot be reached, or did not answer in time:
    /// the user can only wait for it and run the command again. Its details (SwiftNIO's
    /// description of the failed connection) are no help to them.
    static func isOutage(_ error: any Error) -> Bool {
      guard let error = error as? PostgresLogError else { return false }
      return error.kind == .unreachable || error.kind == .timedOut
    }
  }
#endif
