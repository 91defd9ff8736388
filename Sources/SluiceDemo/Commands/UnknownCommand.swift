import ArgumentParser

/// A word on the command line where a command is expected (`sluice-demo frobnicate`,
/// `sluice-demo todo frobnicate`) that names no command.
struct UnknownCommand: Equatable, CustomStringConvertible {
  /// The commands before the unknown word, from the root: `["sluice-demo", "todo"]`.
  let parents: [String]
  /// The word that names no command.
  let word: String

  /// Finds the first unknown command in `arguments` (without the program's name), walking down
  /// from `root` while each word names a subcommand; `nil` when there is none.
  ///
  /// The walk stops at an option (the parser reports bad options itself), at `help`, and at a
  /// command without subcommands, which takes its own arguments. A command with a default
  /// subcommand (the tour) is taken to have no positional arguments of its own: any other word
  /// is unknown.
  init?(in arguments: [String], under root: any ParsableCommand.Type) {
    var command = root
    var parents = [Self.name(of: root)]
    for word in arguments {
      let subcommands = command.configuration.subcommands
      if subcommands.isEmpty || word.hasPrefix("-") || word == "help" { return nil }
      guard let next = subcommands.first(where: { Self.name(of: $0) == word }) else {
        self.init(parents: parents, word: word)
        return
      }
      command = next
      parents.append(word)
    }
    return nil
  }

  init(parents: [String], word: String) {
    self.parents = parents
    self.word = word
  }

  /// The name a command is called by: its configured name, else its type's name in lower case
  /// (`Tour` → `tour`), as the argument parser derives it for one-word type names.
  static func name(of command: any ParsableCommand.Type) -> String {
    command.configuration.commandName ?? String(describing: command).lowercased()
  }

  var description: String {
    "Unknown command '\((parents.dropFirst() + [word]).joined(separator: " "))'."
  }

  /// Where the commands are listed.
  var help: String {
    "\(parents.joined(separator: " ")) --help lists the commands."
  }
}
