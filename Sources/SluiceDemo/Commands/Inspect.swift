import ArgumentParser
import Foundation
import Sluice

#if Inspector
  import SluiceInspector

  /// `sluice-demo inspect`: the tour's app, acting slowly (or a step per Enter), with the Sluice
  /// Inspector attached; open the URL it prints to watch it.
  struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Run the tour's app slowly with the Sluice Inspector attached; open the URL it prints.",
      discussion: """
        The app adds and completes todos, changes the theme, signs in through a slow effect and \
        commits a transaction, round after round, with nothing saved to disk. The page shows each \
        action with where it was dispatched and why, the state before and after, why a value \
        changed, time travel in a fork, and a recorded range as a Swift test. Press Ctrl-C to stop.
        """)

    @Option(help: ArgumentHelp("Milliseconds between two steps.", valueName: "ms"))
    var pace = 1500

    @Flag(help: "Wait for Enter before each step instead of pacing.")
    var step = false

    @Option(
      help: ArgumentHelp("Rounds of the script to run; 0 runs until stopped.", valueName: "n"))
    var rounds = 0

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 0

    func validate() throws {
      guard (0...600_000).contains(pace) else { throw ValidationError("--pace is 0 to 600000 ms.") }
      guard rounds >= 0 else { throw ValidationError("--rounds cannot be negative.") }
      guard (0...65_535).contains(port) else { throw ValidationError("--port is 0 to 65535.") }
    }

    func run() async throws {
      let terminal = Terminal()
      let stepPause = Duration.milliseconds(max(pace / 4, 1))
      let signInSteps = 4
      let app = TodoApp(storage: .inMemory(), signInSteps: signInSteps, signInPause: stepPause)
      let inspector: Inspector
      do {
        inspector = try await Inspector.start(
          app.dispatcher,
          configuration: .init(
            port: port, testExport: InspectScript.testExport(signInSteps: signInSteps)))
      } catch {
        StandardError.line("Error: the inspector could not start: \(error.message)")
        throw ExitCode.failure
      }
      terminal.line(terminal.styled("Sluice Inspector", .bold) + " is watching the tour's app.")
      terminal.line("Open \(inspector.url.absoluteString) in a browser.")
      terminal.line(
        terminal.styled(
          step
            ? "Press Enter for each step; Ctrl-C stops."
            : "One step every \(pace) ms; Ctrl-C stops.",
          .dim))
      // Observers, as an app's views would have: the page lists them and says why they fired.
      let watching = [
        app.todos.observe(\.items, from: .nextChange) { change in
          terminal.fact("todos: \(change.new.count { !$0.isDone }) open")
        },
        app.settings.observe(\.theme, from: .nextChange) { change in
          terminal.fact("theme: \(change.new)")
        },
      ]
      defer { withExtendedLifetime(watching) {} }
      let script = InspectScript(app: app, terminal: terminal)
      var round = 1
      while rounds == 0 || round <= rounds {
        for action in script.round(round) {
          if step {
            guard await StandardInput.nextLine() != nil else { return await inspector.stop() }
          } else {
            try await Task.sleep(for: .milliseconds(pace))
          }
          await action()
        }
        round += 1
      }
      terminal.line("Done: \(rounds) round\(rounds == 1 ? "" : "s").")
      await inspector.stop()
    }
  }

  /// What `inspect` does, round after round: each element is one step a user would take.
  struct InspectScript: Sendable {
    /// How the inspector writes a recorded range of an app signing in in `signInSteps` steps as
    /// a test: the test runs the sign-in effect too, without its pauses.
    static func testExport(signInSteps: Int) -> TestExport {
      TestExport(
        imports: ["SluiceDemo"],
        reducers: [
          "TodoList": "TodoList.reducer", "Settings": "Settings.reducer",
          "Session": "Session.reducer",
        ],
        effects: ["Session": "Session.effects(steps: \(signInSteps), pause: .zero)"])
    }

    let app: TodoApp
    let terminal: Terminal

    /// The steps of round `round`.
    func round(_ round: Int) -> [@Sendable () async -> Void] {
      let app = self.app
      let terminal = self.terminal
      let suffix = round == 1 ? "" : " (\(round))"
      func step(_ text: String, _ body: @escaping @Sendable () async -> Void)
        -> @Sendable () async -> Void
      {
        {
          terminal.dispatching(text)
          await body()
        }
      }
      return [
        step("ClearAll()") { app.todos.dispatch(ClearAll()) },
        step("AddTodo(\"Buy milk\(suffix)\")") {
          app.todos.dispatch(AddTodo(title: "Buy milk\(suffix)"))
        },
        step("AddTodo(\"Walk the dog\(suffix)\")") {
          app.todos.dispatch(AddTodo(title: "Walk the dog\(suffix)"))
        },
        step("AddTodo(\"Call Ada\(suffix)\")") {
          app.todos.dispatch(AddTodo(title: "Call Ada\(suffix)"))
        },
        step("CompleteTodo(first open)") {
          if let open = app.todos.state.items.first(where: { !$0.isDone }) {
            app.todos.dispatch(CompleteTodo(id: open.id))
          }
        },
        step("ChangeTheme(…)") {
          app.settings.dispatch(
            ChangeTheme(theme: app.settings.state.theme == .dark ? .light : .dark))
        },
        step("SignIn(\"Ada\") — a slow effect dispatches the progress and the result") {
          app.session.dispatch(SignIn(name: "Ada"))
          await app.session.settle()
        },
        step("transaction \"plan the week\"") {
          _ = app.dispatcher.transaction("plan the week") { tx in
            tx.dispatch(AddTodo(title: "Plan the week\(suffix)"))
            try tx.update(app.settings) { $0.theme = $0.theme == .dark ? .light : .dark }
          }
        },
        step("ClearCompleted()") { app.todos.dispatch(ClearCompleted()) },
      ]
    }
  }

  /// Lines of standard input, read on a thread of their own so that no task blocks on them.
  enum StandardInput {
    /// The next line, or `nil` at the end of the input.
    static func nextLine() async -> String? {
      await withCheckedContinuation { continuation in
        let reader = Thread { continuation.resume(returning: readLine()) }
        reader.start()
      }
    }
  }
#else
  /// `sluice-demo inspect` in a build without the inspector: it says how to get one.
  struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Run the tour's app slowly with the Sluice Inspector attached (needs the Inspector trait).",
      discussion: """
        This sluice-demo was built without the inspector, which needs Hummingbird and SwiftNIO. \
        Run it as: swift run --traits Inspector sluice-demo inspect
        """)

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []

    func run() throws {
      StandardError.line(
        "Error: this sluice-demo was built without the inspector. Build and run it with the "
          + "Inspector trait: swift run --traits Inspector sluice-demo inspect (the first such "
          + "build also compiles Hummingbird and SwiftNIO).")
      throw ExitCode.validationFailure
    }
  }
#endif
