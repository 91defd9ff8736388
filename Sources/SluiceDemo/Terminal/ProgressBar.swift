/// A progress indicator for a slow step. On a terminal, a bar redrawn in place whose line ends
/// when it reaches 100%, before anything else is printed; otherwise one line per quarter
/// reached, so logs stay short.
final class ProgressBar: @unchecked Sendable {
  private let terminal: Terminal
  private let label: String
  private let width = 24
  // Touched only by the observer that drives the bar, which is never called concurrently
  // with itself (S6).
  private var lastQuarter = -1

  init(_ label: String, on terminal: Terminal) {
    self.terminal = terminal
    self.label = label
  }

  /// Shows `fraction` (0 to 1).
  func update(_ fraction: Double) {
    let fraction = min(max(fraction, 0), 1)
    let percent = Int((fraction * 100).rounded())
    if terminal.isInteractive {
      let filled = Int((fraction * Double(width)).rounded())
      let bar =
        String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
      terminal.redraw("     \(label) \(terminal.styled(bar, .blue)) \(percent)%")
      if fraction == 1 { terminal.endLine() }
    } else {
      let quarter = Int(fraction * 4)
      guard quarter != lastQuarter else { return }
      lastQuarter = quarter
      terminal.line("     \(label) … \(percent)%")
    }
  }

  /// Ends the bar's line, when the step ended before 100%.
  func finish() {
    terminal.endLine()
  }
}
