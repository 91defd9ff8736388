import Sluice

/// A small todo app for the inspector's tests.
struct TodoState: Equatable, Sendable {
  var items: [Todo] = []
  var nextID = 1
  var filter = Filter.all
  var secret = "hunter2"

  var openCount: Int { items.count { !$0.done } }
}

struct Todo: Equatable, Sendable {
  var id: Int
  var title: String
  var done = false
}

enum Filter: Equatable, Sendable {
  case all, open
}

struct AddTodo: Action {
  var title: String
}

struct ToggleTodo: Action {
  var id: Int
}

struct SetFilter: Action {
  var filter: Filter
}

struct Login: Action {
  var password: String
}

struct CounterState: Equatable, Sendable {
  var count = 0
}

struct Increment: Action {}

let todoReducer = Reducer<TodoState>()
  .on(AddTodo.self) { state, action in
    state.items.append(Todo(id: state.nextID, title: action.title))
    state.nextID += 1
  }
  .on(ToggleTodo.self) { state, action in
    guard let index = state.items.firstIndex(where: { $0.id == action.id }) else { return }
    state.items[index].done.toggle()
  }
  .on(SetFilter.self) { state, action in state.filter = action.filter }
  .on(Login.self) { state, action in state.secret = action.password }

let counterReducer = Reducer<CounterState>()
  .on(Increment.self) { state, _ in state.count += 1 }
  .on(AddTodo.self) { state, _ in state.count += 100 }
