import Foundation
import Sluice
import SluiceSQLite

#if Postgres
  import SluicePostgres
#endif

/// The todo list of the `todo` commands.
///
/// On disk, the list is a lane shared by every `sluice-demo` process that uses the file: each
/// command is a node that catches up with the lane's log, appends its action to it and applies
/// it, so commands run at once never lose each other's changes. With `--postgres URL`, the lane's
/// log is in a PostgreSQL database instead, shared by the commands of every machine that uses
/// it. In memory (`--in-memory`), the list is a store of its own.
struct TodoSession {
  /// Where the list is, for messages: a file, `memory`, or a database.
  let place: String
  /// The file, when the list is in one: its errors are explained with it.
  let path: String?
  let todos: Store<TodoList>
  /// The shared lane, on disk or in PostgreSQL.
  let lane: SharedLane?
  /// Closes the connections to the lane's PostgreSQL database, when the list is in one.
  var closeDatabase: (@Sendable () async -> Void)?
  /// How many todos the tour keeps in the same file: a list of its own, which `todo list`
  /// mentions so that nobody takes it for this one.
  var tourTodos = 0
  let terminal = Terminal()

  static let namespace = "todo"
  /// Where every process appends the list a demo before the shared lane saved: one origin and
  /// one number, so the log keeps it once.
  static let savedListOrigin = "sluice-demo.saved-list"
  /// The name of the list in the lane's snapshots.
  static let sharedName = "todo.todos"

  /// Opens the list the options name: to change it, or (`.readOnly`) only to read it.
  static func open(
    _ options: TodoOptions, mode: SQLiteStorage.Mode = .readWrite
  ) async throws(DemoError) -> TodoSession {
    if let url = options.postgresURL {
      #if Postgres
        return try await open(postgres: url, mode: mode)
      #else
        throw .builtWithoutPostgres(url: url)
      #endif
    }
    let storage = try options.store.open(mode)
    var session = try await open(storage, mode: mode)
    session.tourTodos = tourTodoCount(in: storage)
    return session
  }

  /// How many todos the tour saved in `storage`; 0 when it saved none or they cannot be read.
  static func tourTodoCount(in storage: DemoStorage) -> Int {
    let key: PersistenceKey<TodoList> = storage.key("todos", namespace: TodoApp.namespace)
    guard let record = try? storage.backend.read(key.fullKey),
      let list = try? JSONDecoder().decode(TodoList.self, from: record.data)
    else { return 0 }
    return list.items.count
  }

  /// Opens the list in `storage`.
  private static func open(
    _ storage: DemoStorage, mode: SQLiteStorage.Mode
  ) async throws(DemoError) -> TodoSession {
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
    let alone = TodoSession(place: storage.place, path: storage.path, todos: saved, lane: nil)
    guard let path = storage.path,
      mode == .readWrite || FileManager.default.fileExists(atPath: path)
    else { return alone }
    do {
      let engine = try SQLiteLogEngine(path: path, mode: mode)
      let (lane, todos) = try sharedList(on: engine, mode: mode)
      if mode == .readWrite, saved.state != TodoList() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        _ = try await engine.append(
          [
            SharedLogRecord(
              origin: savedListOrigin, originSequence: 1, name: "todo.restore",
              payload: try encoder.encode(RestoreTodos(list: saved.state)))
          ], to: "default")
      }
      try await lane.start()
      if lane.appliedSequence == 0, saved.state != TodoList() {
        // Read-only, on a file the shared lane never wrote to.
        await lane.stop()
        return alone
      }
      return TodoSession(place: storage.place, path: path, todos: todos, lane: lane)
    } catch {
      throw .onStore(error, at: path) { .cannotOpenStore(path: path, reason: $0) }
    }
  }

  /// A lane on `engine` whose todo list is shared for snapshots; a reader saves none.
  static func sharedList(
    on engine: some SharedLogEngine, mode: SQLiteStorage.Mode
  ) throws -> (SharedLane, Store<TodoList>) {
    let lane = try SharedLane(
      engine: engine, actions: TodoList.sharedActions, label: "sluice-demo.todo",
      snapshotInterval: mode == .readWrite ? 100 : 0)
    let todos = Store(
      initialState: TodoList(), dispatcher: lane.dispatcher, reducer: TodoList.reducer)
    try lane.share(todos, as: sharedName)
    return (lane, todos)
  }

  /// Sends `action` and returns once it is in the log and applied here (on disk or in
  /// PostgreSQL), or reduced and saved (in memory).
  func send(_ action: some Action) async throws(DemoError) {
    guard let lane else {
      todos.dispatch(action)
      return try await save()
    }
    do {
      try await lane.send(action)
    } catch {
      #if Postgres
        if closeDatabase != nil, DemoError.isOutage(error) {
          throw .changeUnconfirmed(place: place)
        }
      #endif
      throw .onStore(error, at: path, place: place) { .notSaved(path: place, reason: $0) }
    }
  }

  /// Makes sure what was dispatched is on disk (in memory: in the storage).
  private func save() async throws(DemoError) {
    do {
      try await todos.persistence?.flush()
      if let error = todos.persistence?.lastError { throw error }
    } catch {
      throw .onStore(error, at: path, place: place) { .notSaved(path: place, reason: $0) }
    }
  }

  /// Stops following the lane, and closes the connections to PostgreSQL.
  func close() async {
    await lane?.stop()
    await closeDatabase?()
  }

  var savedNote: String {
    if closeDatabase != nil { return "Saved in \(place)." }
    return path.map { "Saved in \($0)." } ?? "Kept in memory only: nothing was written."
  }

  /// Prints the list.
  func print() {
    let state = todos.state
    guard !state.items.isEmpty else {
      terminal.line("No todos in \(place). Add one: sluice-demo todo add Buy milk")
      printTourNote()
      return
    }
    terminal.line(terminal.styled("Todos in \(place):", .bold))
    for item in state.items {
      let box = item.isDone ? terminal.styled("[x]", .green) : "[ ]"
      let title = item.isDone ? terminal.styled(item.title, .dim) : item.title
      terminal.line("  #\(item.id) \(box) \(title)")
    }
    terminal.line("\(state.openCount) open, \(state.doneCount) done.")
    printTourNote()
  }

  /// Says that the tour's todos in the same file are another list, when there are some.
  private func printTourNote() {
    guard tourTodos > 0 else { return }
    let count = tourTodos == 1 ? "todo is" : "todos are"
    let note =
      "The tour's \(tourTodos) \(count) a separate list: sluice-demo shows them, "
      + "and the todo commands never change them."
    terminal.line(terminal.styled(note, .dim))
  }
}
