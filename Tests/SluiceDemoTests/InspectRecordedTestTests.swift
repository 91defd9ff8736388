#if Inspector
  import Foundation
  import Sluice
  import SluiceInspector
  import Testing

  @testable import SluiceDemo

  /// The inspector's "record → test" on a session of the demo's app: the file it writes is
  /// `Recorded1Through10Tests.swift` beside this one, which this target compiles and runs.
  @Suite struct InspectRecordedTestTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Recorded1Through10Tests.swift")

    @Test func aRecordedRangeOfTheDemoIsTheTestBesideThisOne() async throws {
      let app = TodoApp(storage: .inMemory(), signInSteps: 2, signInPause: .milliseconds(1))
      let inspector = try await Inspector.start(
        app.dispatcher, configuration: .init(testExport: InspectScript.testExport(signInSteps: 2)))
      app.todos.dispatch(AddTodo(title: "Buy milk"))
      app.todos.dispatch(AddTodo(title: "Walk the dog"))
      app.settings.dispatch(ChangeTheme(theme: .dark))
      app.todos.dispatch(CompleteTodo(id: 1))
      app.settings.dispatch(TourFinished(at: Date(timeIntervalSinceReferenceDate: 812_000_000)))
      app.todos.dispatch(ClearCompleted())
      // The sign-in effect dispatches #8 and #9, then #10 (SignedIn): the test receives them.
      app.session.dispatch(SignIn(name: "Ada"))
      await app.session.settle()
      let file = try inspector.testFile(from: 1, through: 10)
      await inspector.stop()
      #expect(file.name == "Recorded1Through10Tests.swift")
      if ProcessInfo.processInfo.environment["SLUICE_RECORD_GOLDEN"] == "1" {
        try file.source.write(to: Self.golden, atomically: true, encoding: .utf8)
      }
      let golden = try String(contentsOf: Self.golden, encoding: .utf8)
      #expect(
        file.source == golden,
        """
        the inspector now writes another test for this session; if that is intended, run \
        SLUICE_RECORD_GOLDEN=1 swift test --filter InspectRecordedTestTests and review the diff:
        \(file.source)
        """)
    }
  }
#endif
