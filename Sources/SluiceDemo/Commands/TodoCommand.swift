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

    @OptionGroup var options: StoreOptions

    func run() async throws {
      // Read-only: listing works on a file (and folder) the user cannot write, and never
      // creates one.
      let list = try await TodoSession.open(options, mode: .readOnly)
      list.print()
      await list.close()
    }
  }

  struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a todo as done.")

    @Argument(help: "The todo's id, as `todo list` shows it.") var id: Int
    @OptionGroup var options: StoreOptions

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
    @OptionGroup var options: StoreOptions

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

/// The todo list of the `todo` commands.
///
/// On disk, the list is a lane shared by every `sluice-demo` process that uses the file: each
/// command is a node that catches up with the lane's log, appends its action to it and applies
/// it, so commands run at once never lose each other's changes. In memory (`--in-memory`), it
/// is a store of its own.
struct TodoSession {
  let storage: DemoStorage
  let todos: Store<TodoList>
  /// The shared lane, on disk.
  let lane: SharedLane?
  let terminal = Terminal()

  static let namespace = "todo"
  /// Where every process appends the list a demo before the shared lane saved: one origin and
  /// one number, so the log keeps it once.
  static let savedListOrigin = "sluice-demo.saved-list"

  static func open(
    _ options: StoreOptions, mode: SQLiteStorage.Mode = .readWrite
  ) async throws(DemoError) -> TodoSession {
    let storage = try options.open(mode)
    // The list a demo before the shared lane saved, checked as before: a list saved by a
    // newer version is refused and kept.
    let saved = Store(
      initialState: TodoList(), reducer: TodoList.reducer,
      persistence: storage.key("todos", namespace: namespace).saving(.writeThrough))
    if let outcome = saved.persistence?.restoreOutcome,
      let warning = try outcome.check(what: "todo list", in: storage)
    {
      StandardError.line("warning: \(warning)")
    }
    guard let path = storage.path,
      mode == .readWrite || FileManager.default.fileExists(atPath: path)
    else {
      return TodoSession(storage: storage, todos: saved, lane: nil)
    }
    do {
      let engine = try SQLiteLogEngine(path: path, mode: mode)
      let lane = try SharedLane(
        engine: engine, actions: TodoList.sharedActions, label: "sluice-demo.todo",
        snapshotInterval: mode == .readWrite ? 100 : 0)
      let todos = Store(
        initialState: TodoList(), dispatcher: lane.dispatcher, reducer: TodoList.reducer)
      try lane.share(todos, as: "todo.todos")
      if mode == .readWrite, saved.state != TodoList() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        _ = try await engine.append([
          SharedLogRecord(
            origin: savedListOrigin, originSequence: 1, name: "todo.restore",
            payload: try encoder.encode(RestoreTodos(list: saved.state)))
        ])
      }
      try await lane.start()
      if lane.appliedSequence == 0, saved.state != TodoList() {
        // Read-only, on a file the shared lane never wrote to.
        await lane.stop()
        return TodoSession(storage: storage, todos: saved, lane: nil)
      }
      return TodoSession(storage: storage, todos: todos, lane: lane)
    } catch {
      throw .cannotOpenStore(path: path, reason: DemoError.cause(of: error, at: path))
    }
  }

  /// Sends `action` and returns once it is in the log and applied here (on disk), or reduced
  /// and saved (in memory).
  func send(_ action: some Action) async throws(DemoError) {
    guard let lane else {
      todos.dispatch(action)
      return try await save()
    }
    do {
      try await lane.send(action)
    } catch {
      throw .notSaved(path: storage.place, reason: DemoError.cause(of: error, at: storage.path))
    }
  }

  /// Makes sure what was dispatched is on disk (in memory: in the storage).
  private func save() async throws(DemoError) {
    do {
      try await todos.persistence?.flush()
    } catch {
      throw .notSaved(path: storage.place, reason: DemoError.cause(of: error, at: storage.path))
    }
    if let error = todos.persistence?.lastError {
      throw .notSaved(path: storage.place, reason: DemoError.cause(of: error, at: storage.path))
    }
  }

  /// Stops following the lane.
  func close() async {
    await lane?.stop()
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
