import Sluice

/// The tour's app: three stores — todos, session and settings — on one dispatcher, so every
/// action reaches them in one order. Todos and settings are persisted; the session is not.
struct TodoApp: Sendable {
  let dispatcher: Dispatcher
  let todos: Store<TodoList>
  let session: Store<Session>
  let settings: Store<Settings>

  static let namespace = "tour"

  init(storage: DemoStorage, signInSteps: Int, signInPause: Duration) {
    dispatcher = Dispatcher(label: "sluice-demo")
    todos = Store(
      initialState: TodoList(), dispatcher: dispatcher, reducer: TodoList.reducer,
      persistence: storage.key("todos", namespace: Self.namespace))
    session = Store(
      initialState: Session(), dispatcher: dispatcher, reducer: Session.reducer,
      effects: Session.effects(steps: signInSteps, pause: signInPause))
    settings = Store(
      initialState: Settings(), dispatcher: dispatcher, reducer: Settings.reducer,
      persistence: storage.key("settings", namespace: Self.namespace))
  }

  /// Writes whatever is not saved yet.
  func save() async throws {
    try await todos.persistence?.flush()
    try await settings.persistence?.flush()
  }

  /// How many writes the persisted stores made so far.
  var writeCount: Int {
    (todos.persistence?.writeCount ?? 0) + (settings.persistence?.writeCount ?? 0)
  }
}
