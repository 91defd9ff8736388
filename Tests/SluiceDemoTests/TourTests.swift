import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceDemo

/// `sluice-demo` with no command runs the tour; a second run restores what the first saved.
@Suite("sluice-demo tour")
struct TourTests {
  /// A quick sign-in, so the tests do not wait for the demo's deliberate slowness.
  static let fast = ["--sign-in-steps", "4", "--sign-in-pause-milliseconds", "5"]

  @Test func theFirstRunShowsEveryStepAndSavesUnderDotSluice() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(Self.fast, in: folder.url)
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.errors.isEmpty)
    let output = run.output
    expectInOrder(
      output,
      [
        "1. Restore", "Nothing stored in ./.sluice/demo.sqlite yet",
        "2. Actions, reducers and reactions",
        "dispatch AddTodo(\"Read the Sluice guide\")", "todos.open: 0 → 1",
        "dispatch CompleteTodo(#1)", "todos.open: 3 → 2", "todos.done: 0 → 1",
        "dispatch ChangeTheme(.dark)", "settings.theme: light → dark",
        "3. An effect with a slow load", "session.profile: idle → loading", "signing in … 100%",
        "session.profile: loading → loaded(Ada)", "session.profile is loaded(Ada)",
        "4. Transactions", "todos.open: 2 → 4", "settings.theme: dark → light", "committed",
        "aborted: state unchanged (5 todos, 1 done), no reaction ran",
        "5. A lock", "3 actions queued; todos unchanged (5 todos, 1 done)", "release()",
        "todos.open: 4 → 3", "todos.done: 1 → 2", "todos.open: 3 → 2", "todos.done: 2 → 3",
        "todos.open: 2 → 3",
        "replayed in order: CompleteTodo(#2), CompleteTodo(#3), AddTodo(\"Water the plants\")",
        "6. Persistence",
        "saved 6 todos, 3 done and the settings (tour #1) to ./.sluice/demo.sqlite",
      ])
    // The aborted transaction notified nobody: no reaction line between it and the lock.
    let abort = try #require(output.range(of: "transaction \"overcommit\""))
    let lock = try #require(output.range(of: "5. A lock"))
    #expect(!output[abort.upperBound..<lock.lowerBound].contains("→"))
    #expect(!output.contains("\u{1B}["), "colour codes in output that is not a terminal")
    #expect(FileManager.default.fileExists(atPath: folder.path(".sluice/demo.sqlite")))
  }

  @Test func aSecondRunSaysWhatItRestored() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let first = try await DemoProcess.run(Self.fast, in: folder.url)
    #expect(first.status == 0, "\(first.errors)")
    let second = try await DemoProcess.run(["tour"] + Self.fast, in: folder.url)
    #expect(second.status == 0, "\(second.errors)")
    expectInOrder(
      second.output,
      [
        "Restored from ./.sluice/demo.sqlite, saved by tour #1 at ",
        "todos: 6 todos, 3 done — Read the Sluice guide, Try sluice-demo todo, Star the "
          + "repository, Plan the week, Book a table, Water the plants",
        "settings: theme light", "The tour starts over from an empty list",
        // The restored theme is light, so the tour switches it to dark, as the first run did.
        "settings.theme: light → dark",
        "saved 6 todos, 3 done and the settings (tour #2)",
      ])
    #expect(!second.output.contains("Nothing stored"))
    let third = try await DemoProcess.run(Self.fast, in: folder.url)
    #expect(third.output.contains("saved by tour #2 at "))
  }

  @Test func inMemoryWritesNothing() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(["--in-memory"] + Self.fast, in: folder.url)
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.contains("In memory (--in-memory)"))
    #expect(run.output.contains("kept 6 todos, 3 done in memory only: nothing was written"))
    #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
  }

  @Test func theTourTakesAStorePath() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let path = folder.path("nested/folder/tour.sqlite")
    let first = try await DemoProcess.run(["--store", path] + Self.fast, in: folder.url)
    #expect(first.status == 0, "\(first.errors)")
    #expect(FileManager.default.fileExists(atPath: path))
    let second = try await DemoProcess.run(["--store", path] + Self.fast, in: folder.url)
    #expect(second.output.contains("Restored from \(path), saved by tour #1"))
  }

  @Test func colourOnlyOnATerminalAndNeverWithNoColor() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let colour = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url, terminal: true)
    #expect(colour.status == 0, "\(colour.errors)")
    #expect(colour.output.contains("\u{1B}[1m1. Restore\u{1B}[0m"))
    // On a terminal the progress bar is redrawn in place.
    #expect(colour.output.contains("\r     signing in "))
    #expect(colour.output.contains("100%"))
    let plain = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url, environment: ["NO_COLOR": "1"],
      terminal: true)
    #expect(plain.status == 0)
    #expect(!plain.output.contains("\u{1B}["))
  }

  @Test func theProgressBarEndsItsLineBeforeTheReactionsPrint() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url, environment: ["NO_COLOR": "1"],
      terminal: true)
    #expect(run.status == 0, "\(run.errors)")
    // A terminal ends lines with "\r\n" (one Character in Swift); the bar redraws with "\r".
    let lines = run.output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
    let bar = try #require(lines.firstIndex { $0.contains("signing in") && $0.contains("100%") })
    #expect(lines[bar].hasSuffix("100%"), "\(lines[bar])")
    try #require(bar + 1 < lines.count)
    #expect(lines[bar + 1].contains("session.profile: loading → loaded(Ada)"))
  }

  @Test func forceColorColoursOutputThatIsNotATerminalUnlessNoColorIsSet() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let forced = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url, environment: ["FORCE_COLOR": "1"])
    #expect(forced.status == 0, "\(forced.errors)")
    #expect(forced.output.contains("\u{1B}[1m1. Restore\u{1B}[0m"))
    // Colour, but no bar redrawn in place: the output is not a terminal.
    #expect(!forced.output.contains("\r"))
    #expect(forced.output.contains("signing in … 100%"))

    let both = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url,
      environment: ["FORCE_COLOR": "1", "NO_COLOR": "1"])
    #expect(both.status == 0)
    #expect(!both.output.contains("\u{1B}["))

    let off = try await DemoProcess.run(
      ["--in-memory"] + Self.fast, in: folder.url, environment: ["FORCE_COLOR": "0"],
      terminal: true)
    #expect(off.status == 0)
    #expect(!off.output.contains("\u{1B}["))
  }

  @Test func versionPrintsTheDemosVersion() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(["--version"], in: folder.url)
    #expect(run.status == 0)
    #expect(run.output == "\(SluiceDemo.version)\n")
  }

  @Test func helpListsTheCommands() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let help = try await DemoProcess.run(["--help"], in: folder.url)
    #expect(help.status == 0)
    for word in ["tour", "todo", "sluice-demo"] { #expect(help.output.contains(word)) }
    let todoHelp = try await DemoProcess.run(["todo", "--help"], in: folder.url)
    for word in ["add", "list", "done", "clear"] { #expect(todoHelp.output.contains(word)) }
    let addHelp = try await DemoProcess.run(["todo", "add", "--help"], in: folder.url)
    for word in ["--store", "--in-memory"] { #expect(addHelp.output.contains(word)) }
  }
}

/// Expects `parts` to occur in `text` in this order.
func expectInOrder(
  _ text: String, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
  var rest = text[...]
  for part in parts {
    guard let range = rest.range(of: part) else {
      Issue.record(
        "\"\(part)\" missing (or out of order) in the output:\n\(text)",
        sourceLocation: sourceLocation)
      return
    }
    rest = rest[range.upperBound...]
  }
}
