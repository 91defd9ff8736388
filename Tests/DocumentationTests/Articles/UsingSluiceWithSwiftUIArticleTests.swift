import Foundation
import Observation
import Sluice
import SluiceTestSupport
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/UsingSluiceWithSwiftUI.md, compiled and run
// (the view code, marked `apple-only`, needs SwiftUI and is not). The snippets are declared
// inside the test, so their names stay local to it.

@MainActor
@Suite struct UsingSluiceWithSwiftUIArticleTests {
  @Test func theModelDrivesAScreenPathByPath() async {
    struct Todo: Equatable, Identifiable, Sendable {
      let id: Int
      var title: String
      var done = false
    }

    struct TodoState: Equatable, Sendable {
      var todos: [Todo] = []
      var query = ""
      var nextID = 1
    }

    struct AddTodo: Action { let title: String }
    struct ToggleTodo: Action { let id: Int }
    struct QueryChanged: Action { let query: String }

    let todoReducer = Reducer<TodoState>()
      .on(AddTodo.self) { state, action in
        state.todos.append(Todo(id: state.nextID, title: action.title))
        state.nextID += 1
      }
      .on(ToggleTodo.self) { state, action in
        guard let index = state.todos.firstIndex(where: { $0.id == action.id }) else { return }
        state.todos[index].done.toggle()
      }
      .on(QueryChanged.self) { state, action in state.query = action.query }

    @MainActor
    final class TodoScreen {
      let model: StoreModel<TodoState>

      init(store: Store<TodoState>) {
        model = StoreModel(store)
      }

      /// What the list shows: tracks `todos` and `query`.
      var visibleTodos: [Todo] {
        let query = model.query
        return query.isEmpty ? model.todos : model.todos.filter { $0.title.contains(query) }
      }

      /// What the header shows: tracks only the number of todos.
      var title: String { "\(model[\.todos.count]) todos" }

      func add(_ title: String) { model.dispatch(AddTodo(title: title)) }
      func toggle(_ todo: Todo) { model.dispatch(ToggleTodo(id: todo.id)) }
    }

    @MainActor
    func searchField(_ model: StoreModel<TodoState>) -> ValueBinding<String> {
      model.binding(\.query, to: { QueryChanged(query: $0) })
    }

    @MainActor
    final class CountLabel {
      var text = ""
      var subscription: Subscription?

      func show(_ store: Store<TodoState>) {
        subscription = store.observe(\.todos.count, on: .mainActor) { change in
          self.text = "\(change.new) todos"
        }
      }
    }

    // The screen, as a view would use it.
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let screen = TodoScreen(store: store)
    let label = CountLabel()
    label.show(store)
    let headerChanged = ArticleFlag()
    withObservationTracking {
      _ = screen.title
    } onChange: {
      headerChanged.set()
    }

    screen.add("Buy milk")
    screen.add("Walk the dog")
    await Self.settle { screen.visibleTodos.count == 2 && label.text == "2 todos" }
    #expect(screen.visibleTodos.map(\.title) == ["Buy milk", "Walk the dog"])
    #expect(screen.title == "2 todos")
    #expect(label.text == "2 todos")
    #expect(headerChanged.isSet)

    // Toggling changes `todos` but not their number: the header's reader stays valid.
    let headerAgain = ArticleFlag()
    withObservationTracking {
      _ = screen.title
    } onChange: {
      headerAgain.set()
    }
    if let first = screen.visibleTodos.first { screen.toggle(first) }
    await Self.settle { screen.visibleTodos.first?.done == true }
    #expect(!headerAgain.isSet)

    // The search field sets the query through its action.
    let query = searchField(screen.model)
    query.set("dog")
    await Self.settle { screen.visibleTodos.count == 1 }
    #expect(query.get() == "dog")
    #expect(screen.visibleTodos.map(\.title) == ["Walk the dog"])
  }

  @Test func actionsAsOneEnumAreHandledOncePerCaseWithTheirEffects() async {
    enum SearchAction: Action, Equatable {
      case queryChanged(String)
      case suggestionsLoaded([String])
      case cleared

      var queryChanged: String? { if case .queryChanged(let text) = self { text } else { nil } }
      var suggestionsLoaded: [String]? {
        if case .suggestionsLoaded(let items) = self { items } else { nil }
      }
    }

    struct SearchState: Equatable, Sendable {
      var query = ""
      var suggestions: [String] = []
    }

    func searchReducer(
      suggest: @escaping @Sendable (String) async throws -> [String]
    ) -> Reducer<SearchState> {
      Reducer<SearchState>()
        .on(\SearchAction.queryChanged, policy: .latest) { state, text in
          state.query = text
        } effect: { text, context in
          context.dispatch(SearchAction.suggestionsLoaded(try await suggest(text)))
        }
        .on(\SearchAction.suggestionsLoaded) { state, items in state.suggestions = items }
        .on(SearchAction.cleared) { state in state = SearchState() }
    }

    @MainActor
    func searchQuery(_ model: StoreModel<SearchState>) -> ValueBinding<String> {
      model.binding(\.query, to: SearchAction.queryChanged)
    }

    // A fake suggestion service, and the screen's binding.
    let store = Store(
      initialState: SearchState(), reducer: searchReducer { text in [text + "ift", text + "ing"] })
    let query = searchQuery(StoreModel(store))
    query.set("sw")
    await store.settle()
    #expect(store.state == SearchState(query: "sw", suggestions: ["swift", "swing"]))
    store.dispatch(SearchAction.suggestionsLoaded(["other"]))
    #expect(store.state.suggestions == ["other"])
    store.dispatch(SearchAction.cleared)
    #expect(store.state == SearchState())
  }

  @Test(.timeLimit(.minutes(10)))  // A hang guard: its expiry means a change never tracked.
  func codeWithoutSwiftUITracksTheModelWithObservationTracking() async {
    struct Todo: Equatable, Identifiable, Sendable {
      let id: Int
      var title: String
      var done = false
    }

    struct TodoState: Equatable, Sendable {
      var todos: [Todo] = []
      var nextID = 1
    }

    struct AddTodo: Action { let title: String }

    let todoReducer = Reducer<TodoState>()
      .on(AddTodo.self) { state, action in
        state.todos.append(Todo(id: state.nextID, title: action.title))
        state.nextID += 1
      }

    @MainActor
    final class TodoScreen {
      let model: StoreModel<TodoState>
      init(store: Store<TodoState>) { model = StoreModel(store) }
      var title: String { "\(model[\.todos.count]) todos" }
      func add(_ title: String) { model.dispatch(AddTodo(title: title)) }
    }

    /// The header's text after its next change.
    @MainActor
    func nextTitle(of screen: TodoScreen) async -> String {
      await withCheckedContinuation { continuation in
        withObservationTracking {
          _ = screen.title
        } onChange: {
          // Called before the change is applied: read the new value once it is.
          Task { @MainActor in continuation.resume(returning: screen.title) }
        }
      }
    }

    let output = ArticleSupport.Output()
    func print(_ line: String) { output.append(line) }
    let screen = TodoScreen(store: Store(initialState: TodoState(), reducer: todoReducer))

    print(screen.title)  // 0 todos
    screen.add("Buy milk")
    print(screen.title)  // 1 todos
    let store = screen.model.store
    Task.detached { store.dispatch(AddTodo(title: "Walk the dog")) }
    print(await nextTitle(of: screen))  // 2 todos

    #expect(output.lines == ["0 todos", "1 todos", "2 todos"])
  }

  /// Lets main-actor hops run until `condition` holds (at most 10 seconds).
  static func settle(_ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + hangGuard
    while !condition(), ContinuousClock.now < deadline { await Task.yield() }
  }
}

/// A flag set from an observation's `onChange`.
final class ArticleFlag: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
}
