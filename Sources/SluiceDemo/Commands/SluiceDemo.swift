import ArgumentParser

/// `sluice-demo`: a tour of Sluice, and the todo app it is built on.
@main
struct SluiceDemo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sluice-demo",
    abstract: "Sluice, end to end, on a small todo app.",
    discussion: """
      With no command, runs the tour: three stores on one dispatcher, reactions, a slow load, \
      transactions, a lock and persistence in SQLite under ./.sluice/. Run it twice to see \
      the second run restore what the first saved. The todo commands work on your own list.
      """,
    subcommands: [Tour.self, TodoCommand.self],
    defaultSubcommand: Tour.self)
}
