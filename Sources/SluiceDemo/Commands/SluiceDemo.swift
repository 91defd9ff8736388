import ArgumentParser

/// `sluice-demo`: a tour of Sluice, and the todo app it is built on.
@main
struct SluiceDemo: AsyncParsableCommand {
  /// The version `sluice-demo --version` prints.
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "sluice-demo",
    abstract: "Sluice, end to end, on a small todo app.",
    discussion: """
      With no command, runs the tour: three stores on one dispatcher, reactions, a slow load, \
      transactions, a lock and persistence in SQLite under ./.sluice/. Run it twice to see \
      the second run restore what the first saved. The todo commands work on your own list.
      """,
    version: version,
    subcommands: [Tour.self, TodoCommand.self, Inspect.self],
    defaultSubcommand: Tour.self)

  /// Runs the command line. A word where a command is expected that names none is reported as
  /// an unknown command, with a hint to `--help`, and exits with status 64; without this check
  /// the default command (the tour) would refuse it as an unexpected argument and print the
  /// tour's usage.
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let unknown = UnknownCommand(in: arguments, under: Self.self) {
      StandardError.line("Error: \(unknown)")
      StandardError.line("Help: \(unknown.help)")
      Self.exit(withError: ExitCode.validationFailure)
    }
    await main(arguments)
  }
}
