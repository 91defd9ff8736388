import Foundation
import Sluice
import Testing

/// The lines the quick start prints, recorded instead of written to standard output.
private final class ReadmePrintedLines: @unchecked Sendable {
  // @unchecked Sendable: `lines` is only touched under `lock`.
  private let lock = NSLock()
  private var lines: [String] = []

  func append(_ line: String) { lock.withLock { lines.append(line) } }

  var all: [String] { lock.withLock { lines } }
}

private let readmePrinted = ReadmePrintedLines()

/// Shadows `Swift.print` in this file, so the quick start's `print` calls are recorded.
private func print(_ item: Any) {
  readmePrinted.append("\(item)")
}

@Suite("README quick start")
struct ReadmeQuickStartTests {
  @Test func quickStartPrintsTheChangesAndTheFinalState() {
    // The code between the markers is the README's quick start, verbatim (minus `import
    // Sluice`, which is at the top of this file), indented into this test. Keep them identical:
    // when one changes, change the other.
    // --- README quick start ---
    struct Counter: Equatable, Sendable {
      var value = 0
      var step = 1
    }

    struct Increment: Action {}
    struct StepChanged: Action { let step: Int }

    let reducer = Reducer<Counter>()
      .on(Increment.self) { state, _ in state.value += state.step }
      .on(StepChanged.self) { state, action in state.step = action.step }

    let store = Store(initialState: Counter(), reducer: reducer)

    // A new observer first receives the current value (here "value: 0 → 0"), then every change.
    let subscription = store.observe(\.value) { change in
      print("value: \(change.old) → \(change.new)")
    }

    store.dispatch(Increment())  // prints "value: 0 → 1"
    store.dispatch(StepChanged(step: 10))  // `value` did not change: prints nothing
    store.dispatch(Increment())  // prints "value: 1 → 11"
    print("value \(store.state.value), step \(store.state.step)")  // value 11, step 10
    subscription.cancel()
    // --- end of README quick start ---

    #expect(
      readmePrinted.all == [
        "value: 0 → 0",
        "value: 0 → 1",
        "value: 1 → 11",
        "value 11, step 10",
      ])
    #expect(store.state == Counter(value: 11, step: 10))
    #expect(subscription.isCancelled)

    store.dispatch(Increment())
    #expect(store.state.value == 21)
    #expect(readmePrinted.all.count == 4, "a cancelled observer is not called again")
  }

  @Test func readmeSnippetMatchesThisTest() throws {
    // Guards against the README and this test drifting apart: every line of the README's quick
    // start (but `import Sluice`) appears, in order, between this file's markers.
    let testFile = URL(fileURLWithPath: #filePath)
    let readme = testFile.deletingLastPathComponent()  // SluiceTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // package root
      .appendingPathComponent("README.md")
    let readmeText = try String(contentsOf: readme, encoding: .utf8)
    let testText = try String(contentsOf: testFile, encoding: .utf8)

    let snippet = try #require(swiftSnippet(after: "## Quick start", in: readmeText))
    let readmeLines = snippet.filter { $0 != "import Sluice" }
    let testLines = try #require(
      lines(
        in: testText, between: "// --- README quick start ---",
        and: "// --- end of README quick start ---"))
    #expect(readmeLines == testLines)
  }

  /// The lines of the first ```swift block after `heading`, trimmed.
  private func swiftSnippet(after heading: String, in text: String) -> [String]? {
    guard let start = text.range(of: heading) else { return nil }
    let rest = text[start.upperBound...]
    guard let open = rest.range(of: "```swift\n") else { return nil }
    let body = rest[open.upperBound...]
    guard let close = body.range(of: "```") else { return nil }
    return body[..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  /// The trimmed, non-empty lines strictly between the lines holding `first` and `last`.
  private func lines(in text: String, between first: String, and last: String) -> [String]? {
    let all = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    guard let start = all.firstIndex(of: first), let end = all.lastIndex(of: last), start < end
    else { return nil }
    return all[(start + 1)..<end].filter { !$0.isEmpty }
  }
}
