import Foundation
import SluiceTestSupport
import Testing

#if !Inspector || !Postgres
  /// The light first build (`swift run sluice-demo`, no traits): a command that needs a trait
  /// says how to build it, in words, and changes nothing. Runs in builds without the traits
  /// (CI's core-only thread-sanitizer step); `swift test --enable-all-traits` has the commands.
  @Suite("sluice-demo without its traits")
  struct DemoWithoutTraitsTests {
    #if !Inspector
      @Test func inspectSaysHowToBuildTheDemoWithTheInspector() async throws {
        let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
        defer { folder.remove() }
        let run = try await DemoProcess.run(["inspect", "--pace", "10"], in: folder.url)
        #expect(run.status == 64)
        #expect(
          run.errors.contains("swift run --traits Inspector sluice-demo inspect"), "\(run.errors)")
        #expect(run.output.isEmpty, "\(run.output)")
      }
    #endif

    #if !Postgres
      @Test func postgresSaysHowToBuildTheDemoWithItAndWritesNothing() async throws {
        let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
        defer { folder.remove() }
        let run = try await DemoProcess.run(
          ["todo", "add", "x", "--postgres", "postgres://nobody@127.0.0.1:1/todos"],
          in: folder.url)
        #expect(run.status != 0)
        #expect(run.errors.contains("swift run --traits Postgres sluice-demo"), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
      }
    #endif
  }
#endif
