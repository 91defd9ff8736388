import Foundation
import Sluice

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the demo writes: standard output, styled with ANSI colours when ``usesColour`` says so,
/// and safe to use from the lane's thread and the main task alike.
///
/// Colour follows the common conventions, first match wins: `NO_COLOR` set to anything but the
/// empty string turns it off (<https://no-color.org>); `FORCE_COLOR` turns it on even when the
/// output is not a terminal, unless it is `0` or `false`, which turn it off; otherwise colour is
/// used when standard output is a terminal whose `TERM` is not `dumb`.
final class Terminal: Sendable {
  /// Whether standard output is a terminal (and `TERM` is not `dumb`): a progress bar is redrawn
  /// in place.
  let isInteractive: Bool
  /// Whether ``styled(_:_:)`` adds ANSI colour codes.
  let usesColour: Bool
  /// Whether a line drawn in place (``redraw(_:)``) waits for its newline.
  private let lineIsOpen = Guarded(false)

  init(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    outputIsTerminal: Bool = isatty(STDOUT_FILENO) == 1
  ) {
    isInteractive = outputIsTerminal && environment["TERM"] != "dumb"
    usesColour = Terminal.usesColour(environment: environment, isInteractive: isInteractive)
  }

  /// Whether to colour the output, by the conventions in the type's description.
  static func usesColour(environment: [String: String], isInteractive: Bool) -> Bool {
    if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
    if let force = environment["FORCE_COLOR"] { return force != "0" && force != "false" }
    return isInteractive
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

  /// `text` in `style` when the output is coloured, plain otherwise.
  func styled(_ text: String, _ style: Style) -> String {
    usesColour ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
  }

  /// Writes a line, below the line drawn in place if one is open.
  func line(_ text: String = "") {
    lineIsOpen.withLock { isOpen in
      write((isOpen ? "\n" : "") + text + "\n")
      isOpen = false
    }
  }

  /// Draws `text` over the current line (a progress bar redrawn in place); the next ``line(_:)``
  /// or ``endLine()`` ends it first.
  func redraw(_ text: String) {
    lineIsOpen.withLock { isOpen in
      write("\r" + text)
      isOpen = true
    }
  }

  /// Ends the line drawn in place, if one is open.
  func endLine() {
    lineIsOpen.withLock { isOpen in
      if isOpen { write("\n") }
      isOpen = false
    }
  }

  /// Writes `text` as is; the caller holds `lineIsOpen`'s lock, so writes never interleave.
  private func write(_ text: String) {
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
