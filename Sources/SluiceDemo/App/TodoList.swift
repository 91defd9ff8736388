import Sluice

/// One thing to do.
struct Todo: Codable, Equatable, Sendable {
  let id: Int
  var title: String
  var isDone = false
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

struct AddTodo: Action { let title: String }
struct CompleteTodo: Action { let id: Int }
struct ClearCompleted: Action {}
struct ClearAll: Action {}

extension TodoList {
  static let reducer = Reducer<TodoList>()
    .on(AddTodo.self) { list, action in
      list.items.append(Todo(id: list.nextID, title: action.title))
      list.nextID += 1
    }
    .on(CompleteTodo.self) { list, action in
      guard let index = list.items.firstIndex(where: { $0.id == action.id }) else { return }
      list.items[index].isDone = true
    }
    .on(ClearCompleted.self) { list, _ in list.items.removeAll { $0.isDone } }
    .on(ClearAll.self) { list, _ in list = TodoList() }
}
