import Foundation
import PostgresNIO
import Sluice
import Testing

@testable import SluicePostgres

/// What an engine is made from, and an engine with no server behind it.
@Suite struct PostgresLogEngineConfigurationTests {
  @Test func aURLNamesTheServerTheUserAndTheDatabase() throws {
    let full = try PostgresLogEngine.Configuration(
      url: "postgres://lane:p%40ss@db.internal:6543/orders?application_name=node-1")
    #expect(full.host == "db.internal")
    #expect(full.port == 6543)
    #expect(full.user == "lane")
    #expect(full.password == "p@ss")
    #expect(full.database == "orders")
    #expect(full.applicationName == "node-1")
    // As libpq: TLS when the server offers it.
    #expect(full.tls == .prefer)
    let short = try PostgresLogEngine.Configuration(url: "postgresql://lane@localhost")
    #expect(short.port == 5432)
    #expect(short.password == nil)
    #expect(short.database == "lane")
    #expect(short.applicationName == "sluice")
  }

  /// By default the engine logs warnings and errors only: an outage's connection attempts
  /// (PostgresNIO's "Connection creation failed", at `info`) do not flood a node's stderr.
  @Test func theDefaultLoggerIsQuietDuringAnOutage() throws {
    let configuration = try PostgresLogEngine.Configuration(url: "postgres://lane@db/orders")
    #expect(configuration.logger.logLevel == .warning)
  }

  @Test(arguments: [
    ("disable", PostgresLogEngine.Configuration.TLS.disable), ("prefer", .prefer),
    ("require", .require), ("verify-ca", .verifyCA(rootCertificates: nil)),
    ("verify-full", .verifyFull(rootCertificates: nil)),
  ])
  func sslModesAreSpelledAsLibpqSpellsThem(
    mode: String, tls: PostgresLogEngine.Configuration.TLS
  ) throws {
    let configuration = try PostgresLogEngine.Configuration(
      url: "postgres://lane@db.internal/orders?sslmode=\(mode)")
    #expect(configuration.tls == tls)
  }

  @Test func aRootCertificateFileIsTheAuthorityTheVerifyingModesTrust() throws {
    let configuration = try PostgresLogEngine.Configuration(
      url: "postgres://lane@db.internal/orders?sslmode=verify-full&sslrootcert=/etc/ca.pem")
    #expect(configuration.tls == .verifyFull(rootCertificates: "/etc/ca.pem"))
  }

  @Test(arguments: [
    "mysql://lane@db/orders", "postgres:///orders", "postgres://db.internal/orders",
    "postgres://lane@db/orders?sslmode=sometimes", "not a url",
  ])
  func anAddressThatIsNotAPostgresURLIsRejected(url: String) {
    #expect {
      _ = try PostgresLogEngine(configuration: .init(url: url))
    } throws: { error in
      (error as? PostgresLogError)?.kind == .invalidURL
    }
  }

  @Test func aServerThatIsNotThereIsAnErrorValue() async throws {
    // A port that was free a moment ago: nothing listens there.
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0).get()
    let port = try #require(channel.localAddress?.port)
    try await channel.close()
    let log = PostgresLogEngine(
      configuration: .init(
        host: "127.0.0.1", port: port, user: "nobody", database: "none", timeout: .seconds(3)))
    await #expect {
      _ = try await log.append([
        SharedLogRecord(origin: "a", originSequence: 1, name: "n", payload: Data())
      ])
    } throws: { error in
      // Refused at once, or, on a machine too busy to see the refusal, out of time.
      let error = error as? PostgresLogError
      return [.unreachable, .timedOut].contains(error?.kind)
        && error?.endpoint == "127.0.0.1:\(port)/none"
    }
    await #expect(throws: PostgresLogError.self) { try await log.head() }
    await log.close()
  }

  @Test func errorsSayWhatFailedInWords() {
    let error = PostgresLogError(
      .server, operation: "append to the shared log", endpoint: "db:5432/orders",
      sqlState: "42P01", detail: "relation \"sluice_log\" does not exist")
    #expect(
      error.description
        == "could not append to the shared log: the server at db:5432/orders refused it "
        + "(SQLSTATE 42P01): relation \"sluice_log\" does not exist")
  }
}
