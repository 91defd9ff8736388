import Sluice

/// One thing to do.
struct Todo: Codable, Equatable, Sendable {
  let id: Int
  var title: String
  var isDone = false
  /// The `todo add` command that added it, so the command can tell which id it got while
  /// other processes add todos too.
  var request: String?
}

/// The todo list: the state of the `todos` store, persisted.
struct TodoList: Codable, Equatable, Sendable {
  var items: [Todo] = []
  var nextID = 1

  var openCount: Int { items.count { !$0.isDone } }
  var doneCount: Int { items.count { $0.isDone } }

  func item(_ id: Int) -> Todo? { items.first { $0.id == id } }

  /// "3 todos, 1 done", for messages.
  var summary: String {
    "\(items.count) \(items.count == 1 ? "todo" : "todos"), \(doneCount) done"
  }
}

struct AddTodo: Action, Codable {
  let title: String
  var request: String? = nil
}
struct CompleteTodo: Action, Codable { let id: Int }
struct ClearCompleted: Action, Codable {}
struct ClearAll: Action, Codable {}
/// Starts the shared list from the one a version of the demo before the shared lane saved.
struct RestoreTodos: Action, Codable { let list: TodoList }

extension TodoList {
  static let reducer = Reducer<TodoList>()
    .on(AddTodo.self) { list, action in
      list.items.append(Todo(id: list.nextID, title: action.title, request: action.request))
      list.nextID += 1
    }
    .on(CompleteTodo.self) { list, action in
      guard let index = list.items.firstIndex(where: { $0.id == action.id }) else { return }
      list.items[index].isDone = true
    }
    .on(ClearCompleted.self) { list, _ in list.items.removeAll { $0.isDone } }
    .on(ClearAll.self) { list, _ in list = TodoList() }
    .on(RestoreTodos.self) { list, action in list = action.list }

  /// The actions the `todo` commands send through the shared lane, by stable name.
  static let sharedActions = SharedActions()
    .register(AddTodo.self, as: "todo.add")
    .register(CompleteTodo.self, as: "todo.complete")
    .register(ClearCompleted.self, as: "todo.clear-completed")
    .register(ClearAll.self, as: "todo.clear-all")
    .register(RestoreTodos.self, as: "todo.restore")
}
