#if SLUICE_NETWORK_CASES
  import Foundation
  import SluicePostgres

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// The PostgreSQL server of the `shared.postgres.*` cases: a new cluster (`initdb`) in a
  /// temporary folder, trusting local connections, listening on 127.0.0.1 and a free port, with
  /// `fsync` on, since the cases measure durable appends. PostgreSQL refuses to run as root: as
  /// root, its programs run as the `postgres` user (`runuser`).
  ///
  /// The first case that needs it starts it, from the main thread (starting blocks); it is
  /// stopped and its folder removed when the process exits.
  final class PostgresBenchServer: Sendable {
    /// Why the server cannot run here.
    struct Unavailable: Error, CustomStringConvertible {
      let description: String
    }

    /// The cluster's folder (`data`), its socket and its logs.
    let folder: String
    /// The TCP port, on 127.0.0.1.
    let port: Int
    private let bin: String

    /// The role the cases log in as.
    static let user = "sluice"

    private init(folder: String, port: Int, bin: String) {
      self.folder = folder
      self.port = port
      self.bin = bin
    }

    /// The folder of `initdb` and `pg_ctl`: `$PG_BIN`; else Debian's
    /// `/usr/lib/postgresql/<version>/bin`, the newest version first; else a folder of `PATH`.
    static let binaries: String? = {
      let environment = ProcessInfo.processInfo.environment
      let installed = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))
        .map { versions in
          versions.compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        }
      let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
      let folders = [environment["PG_BIN"]].compactMap { $0 } + (installed ?? []) + path
      return folders.first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }()

    /// Why the `shared.postgres.*` cases cannot run here, or `nil` when they can.
    static func unavailability() -> String? {
      guard binaries == nil else { return nil }
      return "no PostgreSQL server binaries (initdb in $PG_BIN, /usr/lib/postgresql/*/bin or on "
        + "PATH): install postgresql to measure the shared lane on PostgreSQL"
    }

    /// The running server, started on first use.
    static let shared: Result<PostgresBenchServer, Unavailable> = start()

    /// Makes a cluster in a new temporary folder and starts its server.
    private static func start() -> Result<PostgresBenchServer, Unavailable> {
      guard let bin = binaries else { return .failure(Unavailable(description: "no initdb")) }
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("sluice-bench-postgres-\(UUID().uuidString)").path
      guard let port = freePort(),
        (try? FileManager.default.createDirectory(
          atPath: folder, withIntermediateDirectories: true)) != nil
      else { return .failure(Unavailable(description: "no folder or no free port")) }
      let server = PostgresBenchServer(folder: folder, port: port, bin: bin)
      if geteuid() == 0 { _ = system("chown postgres:postgres '\(folder)'") }
      atexit { if case .success(let server) = PostgresBenchServer.shared { server.remove() } }
      let options =
        "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=on "
        + "-c synchronous_commit=on"
      guard
        server.tool("initdb", "-D \(folder)/data -U \(user) --auth=trust --locale=C -E UTF8"),
        server.tool(
          "pg_ctl", "-D \(folder)/data -l \(folder)/server.log -w -t 60 -o '\(options)' start")
      else {
        return .failure(Unavailable(description: "the server did not start: see \(folder)"))
      }
      return .success(server)
    }

    /// A configuration for a new, empty database named `name`.
    func makeDatabase(_ name: String) throws -> PostgresLogEngine.Configuration {
      guard tool("createdb", "-h 127.0.0.1 -p \(port) -U \(Self.user) \(name)") else {
        throw Unavailable(description: "createdb \(name) failed: see \(folder)/commands.log")
      }
      return PostgresLogEngine.Configuration(
        host: "127.0.0.1", port: port, user: Self.user, database: name, timeout: .seconds(30))
    }

    /// The first column of the first row `sql` returns, as `psql` prints it; `nil` when it
    /// failed.
    func scalar(_ sql: String) -> String? {
      let output = "\(folder)/scalar-\(UUID().uuidString)"
      defer { try? FileManager.default.removeItem(atPath: output) }
      let quoted = sql.replacingOccurrences(of: "'", with: "'\\''")
      guard
        system(
          "\(bin)/psql -X -A -t -h 127.0.0.1 -p \(port) -U \(Self.user) -d postgres "
            + "-c '\(quoted)' > '\(output)' 2>> '\(folder)/commands.log'") == 0,
        let text = try? String(contentsOfFile: output, encoding: .utf8)
      else { return nil }
      return text.split(separator: "\n").first.map(String.init)
    }

    /// Stops the server at once and removes its folder.
    private func remove() {
      _ = tool("pg_ctl", "-D \(folder)/data -m immediate -w stop")
      try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs the PostgreSQL program `name` with `arguments` through the shell (as `postgres` when
    /// root), its output appended to `commands.log`; whether it exited with 0.
    private func tool(_ name: String, _ arguments: String) -> Bool {
      let user = geteuid() == 0 ? "runuser -u postgres -- " : ""
      return system("\(user)\(bin)/\(name) \(arguments) >> '\(folder)/commands.log' 2>&1") == 0
    }

    /// A TCP port of 127.0.0.1 that nothing listens on at the moment.
    private static func freePort() -> Int? {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
          bind(descriptor, socketAddress, length) == 0
            && getsockname(descriptor, socketAddress, &length) == 0
        }
      }
      return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
  }
#endif
