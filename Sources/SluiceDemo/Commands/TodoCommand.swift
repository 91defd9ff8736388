import ArgumentParser
import Foundation
import Sluice
import SluiceSQLite

/// `sluice-demo todo add|list|done|clear`: your own todo list, kept in the store file.
struct TodoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "todo",
    abstract: "Add, list, complete and clear todos, kept in the store file.",
    subcommands: [Add.self, List.self, Done.self, Clear.self])

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add a todo.")

    @Argument(help: "What to do.") var text: [String]
    @OptionGroup var options: StoreOptions

    func validate() throws {
      if title.isEmpty { throw ValidationError("A todo needs a text: todo add \"Buy milk\".") }
    }

    var title: String {
      text.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run() async throws {
      let list = try TodoSession(options)
      list.todos.dispatch(AddTodo(title: title))
      try await list.save()
      let state = list.todos.state
      if let added = state.items.last {
        list.terminal.line("Added #\(added.id) \"\(added.title)\". \(state.summary).")
      }
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the todos.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
      // Read-only: listing works on a file (and folder) the user cannot write, and never
      // creates one.
      let list = try TodoSession(options, mode: .readOnly)
      list.print()
    }
  }

  struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a todo as done.")

    @Argument(help: "The todo's id, as `todo list` shows it.") var id: Int
    @OptionGroup var options: StoreOptions

    func run() async throws {
      let list = try TodoSession(options)
      // A command reads the state and dispatches only when the id exists (RxStateFlow's
      // conditional dispatch); an unknown id changes nothing.
      guard let todo = list.todos.state.item(id) else {
        throw DemoError.unknownTodo(id: id, known: list.todos.state.items.map(\.id))
      }
      guard !todo.isDone else {
        list.terminal.line("#\(id) \"\(todo.title)\" was already done.")
        return
      }
      list.todos.dispatch(CompleteTodo(id: id))
      try await list.save()
      list.terminal.line("Done: #\(id) \"\(todo.title)\". \(list.todos.state.summary).")
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
    }
  }

  struct Clear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove the done todos (all of them with --all).")

    @Flag(help: "Remove every todo, done or not.") var all = false
    @OptionGroup var options: StoreOptions

    func run() async throws {
      let list = try TodoSession(options)
      let before = list.todos.state.items.count
      if all {
        list.todos.dispatch(ClearAll())
      } else {
        list.todos.dispatch(ClearCompleted())
      }
      try await list.save()
      let removed = before - list.todos.state.items.count
      list.terminal.line(
        "Removed \(removed) \(removed == 1 ? "todo" : "todos"); \(list.todos.state.summary) left.")
      list.terminal.line(list.terminal.styled(list.savedNote, .dim))
    }
  }
}

/// The todo store of the `todo` commands, persisted with every change written through.
struct TodoSession {
  let storage: DemoStorage
  let todos: Store<TodoList>
  let terminal = Terminal()

  static let namespace = "todo"

  init(_ options: StoreOptions, mode: SQLiteStorage.Mode = .readWrite) throws(DemoError) {
    storage = try options.open(mode)
    todos = Store(
      initialState: TodoList(), reducer: TodoList.reducer,
      persistence: storage.key("todos", namespace: Self.namespace).saving(.writeThrough))
    if let outcome = todos.persistence?.restoreOutcome,
      let warning = try outcome.check(what: "todo list", in: storage)
    {
      StandardError.line("warning: \(warning)")
    }
  }

  /// Makes sure what was dispatched is on disk.
  func save() async throws(DemoError) {
    do {
      try await todos.persistence?.flush()
    } catch {
      throw .notSaved(path: storage.place, reason: DemoError.cause(of: error, at: storage.path))
    }
    if let error = todos.persistence?.lastError {
      throw .notSaved(path: storage.place, reason: DemoError.cause(of: error, at: storage.path))
    }
  }

  var savedNote: String {
    storage.path.map { "Saved in \($0)." } ?? "Kept in memory only: nothing was written."
  }

  /// Prints the list.
  func print() {
    let state = todos.state
    guard !state.items.isEmpty else {
      terminal.line("No todos in \(storage.place). Add one: sluice-demo todo add Buy milk")
      return
    }
    terminal.line(terminal.styled("Todos in \(storage.place):", .bold))
    for item in state.items {
      let box = item.isDone ? terminal.styled("[x]", .green) : "[ ]"
      let title = item.isDone ? terminal.styled(item.title, .dim) : item.title
      terminal.line("  #\(item.id) \(box) \(title)")
    }
    terminal.line("\(state.openCount) open, \(state.doneCount) done.")
  }
}
