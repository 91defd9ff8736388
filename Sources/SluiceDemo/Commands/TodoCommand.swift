import ArgumentParser
import Foundation
import Sluice
import SluiceSQLite

/// `sluice-demo todo add|list|done|clear`: your own todo list, kept in the store file or, with
/// `--postgres URL`, in a PostgreSQL database.
struct TodoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "todo",
    abstract: "Add, list, complete and clear todos, kept in the store file or in PostgreSQL.",
    discussion: """
      The commands share one lane through the store file (--store PATH, \
      ./.sluice/demo.sqlite by default), or with --postgres URL through a PostgreSQL database, \
      so commands run at once, on one machine or on several, never lose each other's todos: \
      sluice-demo todo add Buy milk --postgres postgres://user:password@host:5432/todos
      """,
    subcommands: [Add.self, List.self, Done.self, Clear.self])

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add a todo.")

    @Argument(help: "What to do.") var text: [String]
    @OptionGroup var options: TodoOptions

    func validate() throws {
      if title.isEmpty { throw ValidationError("A todo needs a text: todo add \"Buy milk\".") }
    }

    var title: String {
      text.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run() async throws {
      let list = try await TodoSession.open(options)
      // Other processes may add todos at the same time: the request tells which one is ours.
      let request = UUID().uuidString
      try await list.send(AddTodo(title: title, request: request))
      let state = list.todos.state
      if let added = state.items.first(where: { $0.request == request }) ?? state.items.last {
        list.terminal.line("Added #\(added.id) \"\(added.title)\". \(state.summary).")
      }
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
      await list.close()
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the todos.")

    @OptionGroup var options: TodoOptions

    func run() async throws {
      // Read-only: listing works on a file (and folder) the user cannot write, and never
      // creates one.
      let list = try await TodoSession.open(options, mode: .readOnly)
      list.print()
      await list.close()
    }
  }

  struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Mark a todo as done.",
      usage: "sluice-demo todo done <id> [--store <path>] [--in-memory] [--postgres <url>]")

    // Every word left after the options: ArgumentParser would take `-1` for an option and say
    // only that the id is missing; `validate()` says what an id is instead.
    @Argument(
      parsing: .allUnrecognized,
      help: ArgumentHelp("The todo's id, as `todo list` shows it.", valueName: "id"))
    var words: [String] = []
    @OptionGroup var options: TodoOptions

    /// The words given for the id, without the `--` that ends the options.
    private var given: [String] { words.filter { $0 != "--" } }

    /// The id, once `validate()` accepted the words.
    var id: Int { given.first.flatMap { Int($0) } ?? 0 }

    func validate() throws {
      let what = "a positive number as `todo list` shows it"
      let words = given
      guard let word = words.first else {
        throw ValidationError("todo done needs the id of a todo, \(what): todo done 1.")
      }
      guard words.count == 1 else {
        throw ValidationError(
          "todo done takes one id at a time, \(what); it got \(words.joined(separator: " ")).")
      }
      guard let id = Int(word), id > 0 else {
        throw ValidationError(
          "ids are positive numbers, as `todo list` shows them: '\(word)' is not one.")
      }
    }

    func run() async throws {
      let list = try await TodoSession.open(options)
      // A command reads the state and dispatches only when the id exists (RxStateFlow's
      // conditional dispatch); an unknown id changes nothing.
      guard let todo = list.todos.state.item(id) else {
        throw DemoError.unknownTodo(id: id, known: list.todos.state.items.map(\.id))
      }
      guard !todo.isDone else {
        list.terminal.line("#\(id) \"\(todo.title)\" was already done.")
        return
      }
      try await list.send(CompleteTodo(id: id))
      list.terminal.line("Done: #\(id) \"\(todo.title)\". \(list.todos.state.summary).")
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
      await list.close()
    }
  }

  struct Clear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove the done todos (all of them with --all).")

    @Flag(help: "Remove every todo, done or not.") var all = false
    @OptionGroup var options: TodoOptions

    func run() async throws {
      let list = try await TodoSession.open(options)
      let before = list.todos.state.items.count
      if all {
        try await list.send(ClearAll())
      } else {
        try await list.send(ClearCompleted())
      }
      let removed = max(0, before - list.todos.state.items.count)
      list.terminal.line(
        "Removed \(removed) \(removed == 1 ? "todo" : "todos"); \(list.todos.state.summary) left.")
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
      await list.close()
    }
  }
}
