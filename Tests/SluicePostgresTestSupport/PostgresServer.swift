import Foundation
import Logging
import PostgresNIO
import Synchronization

@testable import SluicePostgres

/// A throwaway PostgreSQL server for the tests: a cluster made by `initdb` in a temporary
/// folder, trusting every local connection, listening on 127.0.0.1 and a free port; stopped
/// (`pg_ctl stop -m immediate`) and removed by ``remove()``.
///
/// PostgreSQL refuses to run as root: as root, `initdb` and `pg_ctl` run as the `postgres`
/// user (`runuser`), who owns the folder.
public final class PostgresServer: Sendable {
  /// Why a server could not be made or driven.
  public struct Failure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
  }

  /// The folder that holds `initdb` and `pg_ctl`: `$PG_BIN`, else the one on `PATH`, else the
  /// newest `/usr/lib/postgresql/*/bin`; `nil` when there is none.
  public static let binaries: URL? = {
    let manager = FileManager.default
    let environment = ProcessInfo.processInfo.environment
    func holdsServer(_ folder: String) -> Bool {
      manager.isExecutableFile(atPath: "\(folder)/initdb")
        && manager.isExecutableFile(atPath: "\(folder)/pg_ctl")
    }
    var candidates: [String] = []
    if let explicit = environment["PG_BIN"] { candidates.append(explicit) }
    candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
    let versions = (try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
    candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
      .map { "/usr/lib/postgresql/\($0)/bin" }
    guard let folder = candidates.first(where: holdsServer) else { return nil }
    // `initdb` on PATH is often a link into the real folder, next to `postgres`.
    let initdb = URL(fileURLWithPath: "\(folder)/initdb").resolvingSymlinksInPath()
    return initdb.deletingLastPathComponent()
  }()

  /// Whether the tests can run: PostgreSQL is installed, or this is CI, where a missing
  /// server must fail the tests rather than skip them.
  public static var isAvailable: Bool {
    binaries != nil || ProcessInfo.processInfo.environment["CI"] == "true"
  }

  /// The server's folder: the cluster (`data`), its socket, its logs, and the `owner` file
  /// that names the test process.
  public let folder: URL
  /// The TCP port, on 127.0.0.1.
  public let port: Int
  private let bin: URL
  private let databaseCount = DatabaseCounter()

  /// The superuser the tests log in as.
  public static let user = "sluice"

  private init(folder: URL, port: Int, bin: URL) {
    self.folder = folder
    self.port = port
    self.bin = bin
  }

  /// Makes a cluster and starts the server.
  public static func start() async throws -> PostgresServer {
    guard let bin = binaries else {
      throw Failure(
        description: "no PostgreSQL server binaries (initdb, pg_ctl) on PATH, in $PG_BIN or in "
          + "/usr/lib/postgresql/*/bin: install postgresql (apt-get install postgresql)")
    }
    await removeAbandonedServers(bin: bin)
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(folderPrefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("\(getpid())".utf8).write(to: folder.appendingPathComponent("owner"))
    if geteuid() == 0 {
      // PostgreSQL refuses to run as root: the server runs as the `postgres` user.
      try await run("/bin/chown", ["postgres:postgres", folder.path], log: nil)
    }
    let server = PostgresServer(folder: folder, port: try await freePort(), bin: bin)
    do {
      try await server.pgTool(
        "initdb",
        [
          "-D", server.data, "-U", user, "--auth=trust", "--encoding=UTF8", "--locale=C",
          "--no-sync",
        ])
      try await server.start()
    } catch {
      await server.remove()
      throw error
    }
    return server
  }

  /// How the servers' folders start, under the temporary directory.
  private static let folderPrefix = "sluice-postgres"

  /// Stops and removes the servers of test processes that ended without removing them (a
  /// crash, a killed run): each folder names its owner process in its `owner` file.
  private static func removeAbandonedServers(bin: URL) async {
    let manager = FileManager.default
    let temporary = manager.temporaryDirectory
    let names = (try? manager.contentsOfDirectory(atPath: temporary.path)) ?? []
    for name in names where name.hasPrefix("\(folderPrefix)-") {
      let folder = temporary.appendingPathComponent(name)
      let owner = folder.appendingPathComponent("owner")
      guard let text = try? String(contentsOf: owner, encoding: .utf8), let pid = Int32(text),
        kill(pid, 0) != 0, errno == ESRCH
      else { continue }
      let server = PostgresServer(folder: folder, port: 0, bin: bin)
      try? await server.stop()
      try? manager.removeItem(at: folder)
    }
  }

  /// Starts the server (again), on the same port.
  public func start() async throws {
    // fsync=off: the tests stop the server as a crash would, never the machine, so the
    // operating system keeps every write; without it, the recovery after `stop()` takes
    // seconds on a slow disk.
    let options =
      "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c max_connections=200 "
      + "-c fsync=off"
    try await pgTool(
      "pg_ctl", ["-D", data, "-l", path("server.log"), "-w", "-t", "30", "-o", options, "start"])
  }

  /// Stops the server at once, as a crash or a power cut would (`pg_ctl stop -m immediate`).
  public func stop() async throws {
    try await pgTool("pg_ctl", ["-D", data, "-w", "-m", "immediate", "stop"])
  }

  /// Stops the server and removes its folder.
  public func remove() async {
    try? await stop()
    try? FileManager.default.removeItem(at: folder)
  }

  /// The engines' timeout in tests that do not test it: ten minutes, the tests' hang guard.
  public static let engineHangGuard: Duration = .seconds(600)

  /// A configuration for a new, empty database of this server.
  ///
  /// The engine's timeout is a hang guard by default (``engineHangGuard``): a test never
  /// asserts how fast the server answers. With about 1,300 tests in flight beside two
  /// CPU-bound processes, first answers took more than the product's 10 s. A test of the
  /// timeout itself sets a short one, or moves a test clock.
  public func makeDatabase(timeout: Duration = PostgresServer.engineHangGuard) async throws
    -> PostgresLogEngine.Configuration
  {
    let name = "log_\(databaseCount.next())"
    try await execute("CREATE DATABASE \(unescaped: name)", in: "postgres")
    return configuration(database: name, timeout: timeout)
  }

  /// A configuration for a new role that may read and write the log's tables in `owner`'s
  /// database, and nothing more: PostgreSQL 15 and later let no role but the owner create
  /// tables in `public`. The log's tables must exist.
  public func appender(of owner: PostgresLogEngine.Configuration) async throws
    -> PostgresLogEngine.Configuration
  {
    let role = "appender_\(owner.database)"
    try await execute("CREATE ROLE \(unescaped: role) LOGIN", in: owner.database)
    try await execute(
      "GRANT SELECT, INSERT, UPDATE ON sluice_log, sluice_lane_head TO \(unescaped: role)",
      in: owner.database)
    var configuration = owner
    configuration.user = role
    return configuration
  }

  /// A configuration for `database`, with an application name of its own.
  public func configuration(database: String, timeout: Duration = PostgresServer.engineHangGuard)
    -> PostgresLogEngine.Configuration
  {
    PostgresLogEngine.Configuration(
      host: "127.0.0.1", port: port, user: Self.user, database: database, timeout: timeout,
      applicationName: "sluice-\(database)")
  }

  /// Runs `query` on a connection of its own to `database`, and returns the first column of
  /// each row, as text.
  @discardableResult
  public func execute(_ query: PostgresQuery, in database: String) async throws -> [String] {
    try await withConnection(to: database) { connection in
      var values: [String] = []
      for try await row in try await connection.query(query, logger: Self.logger) {
        values.append(try row.decode(String.self))
      }
      return values
    }
  }

  /// Runs `body` with a connection of its own to `database`.
  public func withConnection<Result: Sendable>(
    to database: String, _ body: (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    let configuration = PostgresConnection.Configuration(
      host: "127.0.0.1", port: port, username: Self.user, password: nil, database: database,
      tls: .disable)
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: 0, logger: Self.logger)
    do {
      let result = try await body(connection)
      try? await connection.close()
      return result
    } catch {
      try? await connection.close()
      throw error
    }
  }

  private var data: String { path("data") }

  /// A file in the server's folder.
  private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// A logger that drops everything, for the tests' own queries.
  public static let logger = Logger(
    label: "sluice.postgres.tests", factory: { _ in SwiftLogNoOpLogHandler() })

  /// Runs `initdb` or `pg_ctl`, as `postgres` when the tests run as root, at a low priority
  /// (`nice`, which the server inherits): on a machine with few cores, `initdb` and the server
  /// would otherwise take the processor from the timing-sensitive tests that run beside them.
  private func pgTool(_ name: String, _ arguments: [String]) async throws {
    let tool = bin.appendingPathComponent(name).path
    let log = URL(fileURLWithPath: path("commands.log"))
    let user = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
    try await Self.run("/usr/bin/nice", ["-n", "10"] + user + [tool] + arguments, log: log)
  }

  /// Runs a program to its end, its output appended to `log`; throws when it fails.
  private static func run(_ program: String, _ arguments: [String], log: URL?) async throws {
    let output = log?.path ?? "/dev/null"
    let status = try await ChildProcess.run(program, arguments, output: output)
    guard status == 0 else {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      throw Failure(
        description: "\(program) \(arguments.joined(separator: " ")) exited with \(status):\n"
          + text.split(separator: "\n").suffix(20).joined(separator: "\n"))
    }
  }

  /// A TCP port nothing listens on at the moment.
  private static func freePort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress?.port
    try await channel.close()
    guard let port else { throw Failure(description: "no free port on 127.0.0.1") }
    return port
  }
}

/// Names the databases of one server.
private final class DatabaseCounter: Sendable {
  private let count = Mutex(0)

  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
}
