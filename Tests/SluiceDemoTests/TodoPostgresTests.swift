#if Postgres
  import Foundation
  import SluicePostgresTestSupport
  import SluiceTestSupport
  import Testing

  /// `sluice-demo todo … --postgres URL`: the commands share a lane through a PostgreSQL database,
  /// so commands run at once (on one machine or several) lose nothing and get distinct ids; a
  /// server that cannot be reached is an error in words.
  @Suite("sluice-demo todo --postgres", .requiresPostgres, .postgresServer)
  struct TodoPostgresTests {
    /// The URL of a new database of the suite's server.
    static func newDatabase() async throws -> String {
      let configuration = try await PostgresServer.required.makeDatabase()
      return "postgres://\(PostgresServer.user)@\(configuration.endpoint)"
    }

    @Test func fourAddsAtOnceKeepEveryTodoWithDistinctIds() async throws {
      let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
      defer { folder.remove() }
      let database = ["--postgres", try await Self.newDatabase()]
      let runs = try await DemoProcess.runAtOnce(
        (1...4).map { ["todo", "add", "task \($0)"] + database }, in: folder.url)
      for run in runs { #expect(run.status == 0, "\(run.errors)") }
      let list = try await DemoProcess.run(["todo", "list"] + database, in: folder.url)
      #expect(list.status == 0, "\(list.errors)")
      let ids = (1...4).compactMap { index -> String? in
        let line = list.output.split(separator: "\n").first { $0.hasSuffix("] task \(index)") }
        return line?.split(separator: " ").first.map(String.init)
      }
      #expect(ids.count == 4, "\(list.output)")
      #expect(Set(ids) == ["#1", "#2", "#3", "#4"], "\(list.output)")
      #expect(list.output.contains("4 open, 0 done."), "\(list.output)")
      // Nothing was written to the folder: the list is in the database.
      #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
    }

    @Test func aServerThatCannotBeReachedIsAnErrorInWords() async throws {
      let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
      defer { folder.remove() }
      // Port 1: nothing listens there.
      let run = try await DemoProcess.run(
        ["todo", "add", "x", "--postgres", "postgres://nobody@127.0.0.1:1/todos"], in: folder.url)
      #expect(run.status != 0)
      // What happened, what it means for the data, and what to do; not SwiftNIO's account of
      // the failed connection.
      #expect(
        run.errors.contains(
          "the PostgreSQL server at postgres://127.0.0.1:1/todos cannot be reached, so nothing "
            + "was stored. Run the command again once the server is up"),
        "\(run.errors)")
      for word in ["connectionError", "SingleConnectionFailure", "PSQLError", "NIO"] {
        #expect(!run.errors.contains(word), "\(run.errors)")
      }
    }

    @Test func postgresAndAStoreFileCannotBeUsedTogether() async throws {
      let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
      defer { folder.remove() }
      let run = try await DemoProcess.run(
        ["todo", "list", "--postgres", "postgres://u@h/d", "--store", "x.sqlite"], in: folder.url)
      #expect(run.status == 64)
      #expect(run.errors.contains("--postgres cannot be used with --store or --in-memory."))
    }
  }
#endif
