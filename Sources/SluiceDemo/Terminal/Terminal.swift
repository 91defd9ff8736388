import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the demo writes: standard output, styled with ANSI colours only when it is a terminal
/// (and `NO_COLOR` is not set), and safe to use from the lane's thread and the main task alike.
final class Terminal: Sendable {
  /// Whether standard output is a terminal: colours, and a progress bar redrawn in place.
  let isInteractive: Bool
  private let lock = NSLock()

  init(isInteractive: Bool = Terminal.standardOutputIsTerminal) {
    self.isInteractive = isInteractive
  }

  static var standardOutputIsTerminal: Bool {
    let environment = ProcessInfo.processInfo.environment
    return isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil
      && environment["TERM"] != "dumb"
  }

  enum Style: String {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case magenta = "35"
    case cyan = "36"
  }

  /// `text` in `style` when the output is a terminal, plain otherwise.
  func styled(_ text: String, _ style: Style) -> String {
    isInteractive ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
  }

  /// Writes a line.
  func line(_ text: String = "") {
    write(text + "\n")
  }

  /// Writes `text` as is, and flushes it.
  func write(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  /// A numbered section heading, with a line of explanation under it.
  func section(_ number: Int, _ title: String, _ explanation: String) {
    line()
    line(styled("\(number). \(title)", .bold))
    line(styled("   \(explanation)", .dim))
  }

  /// A change a reaction reported: `store.path: old → new`.
  func change(_ path: String, _ old: String, _ new: String) {
    line("     \(styled(path, .cyan)): \(old) → \(styled(new, .green))")
  }

  /// An action about to be dispatched.
  func dispatching(_ action: String) {
    line("   \(styled("dispatch", .magenta)) \(action)")
  }

  /// A fact the tour checked.
  func fact(_ text: String) {
    line("   \(styled("✓", .green)) \(text)")
  }
}

/// Writes error messages to standard error.
enum StandardError {
  static func line(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
