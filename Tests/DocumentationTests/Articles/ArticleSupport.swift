import Foundation
import SluiceTestSupport

// Helpers shared by the tests of the articles in Sources/*/*.docc (not the migration guides).

enum ArticleSupport {
  /// The lines a snippet printed, in order. A test declares a local `print` that appends here,
  /// so the snippet's `print` calls are recorded instead of written to standard output.
  typealias Output = PrintedLines

  /// Polls `condition` until it holds or `seconds` passed; returns whether it held.
  static func eventually(upTo seconds: Double = hangGuardSeconds, _ condition: @Sendable () -> Bool)
    async
    -> Bool
  {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if Date() > deadline { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
    return true
  }

  /// A new empty folder under the temporary directory.
  static func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("sluice-docs-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}

extension PrintedLines {
  /// Waits until `condition` holds for the lines, polling, for at most `seconds`; returns
  /// whether it held. Never a fixed sleep: it returns as soon as the condition holds.
  func wait(
    upTo seconds: Double = hangGuardSeconds, until condition: @Sendable ([String]) -> Bool
  ) async -> Bool {
    await ArticleSupport.eventually(upTo: seconds) { condition(self.lines) }
  }
}
