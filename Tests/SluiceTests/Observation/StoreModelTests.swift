import Foundation
import Observation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// The `Observable` projection of a store: readers are invalidated per path, on the main actor,
/// and a projection nobody reads costs the store nothing.
@MainActor
@Suite struct StoreModelTests {
  @Test func aReaderIsInvalidatedOnlyWhenAPathItReadChanges() async {
    let model = StoreModel(ModelFixtures.store())
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model.todos.count
    } onChange: {
      invalidated.set()
    }

    model.dispatch(SetQuery(query: "milk"))
    #expect(await ModelFixtures.settled(model))
    #expect(!invalidated.isSet, "a change of another path invalidated the reader")

    model.dispatch(AddTodo(title: "Buy milk"))
    #expect(await ModelFixtures.settled(model))
    #expect(invalidated.isSet)
    #expect(model.todos.count == 1)
    #expect(model.query == "milk")
  }

  @Test func anExactPathInvalidatesItsReaderOnlyWhenItsValueChanges() async {
    let model = StoreModel(ModelFixtures.store(todos: ["Buy milk"]))
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model[\.todos.count]
    } onChange: {
      invalidated.set()
    }

    model.dispatch(ToggleTodo(index: 0))  // the array changes, its count does not
    #expect(await ModelFixtures.settled(model))
    #expect(!invalidated.isSet)
    #expect(model.todos[0].done)

    model.dispatch(AddTodo(title: "Walk"))
    #expect(await ModelFixtures.settled(model))
    #expect(invalidated.isSet)
    #expect(model[\.todos.count] == 2)
  }

  @Test func aModelObservesOnlyThePathsItWasAskedFor() async {
    let store = ModelFixtures.store()
    let model = StoreModel(store)
    store.dispatch(AddTodo(title: "Buy milk"))
    #expect(store.observerCount == 0, "a model nobody reads observes the store")

    _ = model.todos
    _ = model.todos
    #expect(store.observerCount == 1)
    _ = model.query
    _ = model[\.todos.count]
    #expect(store.observerCount == 3)
  }

  @Test func theModelStartsFromTheCurrentStateAndFollowsEveryChange() async {
    let store = ModelFixtures.store(todos: ["a", "b"])
    let model = StoreModel(store)
    #expect(model.todos.map(\.title) == ["a", "b"])
    for index in 0..<20 { store.dispatch(AddTodo(title: "\(index)")) }
    store.dispatch(SetQuery(query: "x"))
    #expect(await ModelFixtures.settled(model))
    #expect(model.todos.count == 22)
    #expect(model.todos.last?.title == "19")
  }

  @Test func changesFromAnotherThreadArriveOnTheMainActor() async {
    let store = ModelFixtures.store()
    let model = StoreModel(store)
    _ = model.todos
    let finished = await runOnThreads(2) { thread in
      for index in 0..<200 { store.dispatch(AddTodo(title: "\(thread)-\(index)")) }
    }
    #expect(finished)
    #expect(await ModelFixtures.settled(model))
    #expect(model.todos.count == 400)
    #expect(model.todos == store.state.todos)
  }

  @Test func aBindingReadsThePathAndSetsItThroughAnAction() async {
    let store = ModelFixtures.store()
    let model = StoreModel(store)
    let query = model.binding(\.query, to: { SetQuery(query: $0) })
    #expect(query.get() == "")
    query.set("milk")
    #expect(store.state.query == "milk")
    #expect(await ModelFixtures.settled(model))
    #expect(query.get() == "milk")
  }

  @Test func sendResumesAfterTheActionWasProcessed() async {
    let store = ModelFixtures.store()
    let model = StoreModel(store)
    await model.send(AddTodo(title: "Buy milk"))
    #expect(store.state.todos.count == 1)
  }

  @Test func aModelThatGoesAwayStopsObservingTheStore() async {
    let store = ModelFixtures.store()
    var model: StoreModel<TodoListState>? = StoreModel(store)
    _ = model?.todos
    _ = model?.query
    #expect(store.observerCount == 2)
    weak let gone = model
    model = nil
    #expect(gone == nil)
    #expect(store.observerCount == 0)
  }
}

/// `observe(on: .mainActor)` with a body isolated to the main actor.
@MainActor
@Suite struct MainActorObservationTests {
  @MainActor
  final class Label {
    var text = ""
    var changes: [String] = []
    var subscriptions: [Subscription] = []

    func show(_ store: Store<TodoListState>) {
      subscriptions.append(
        store.observe(on: .mainActor) { state in self.text = "\(state.todos.count) todos" })
      subscriptions.append(
        store.observe(\.query, on: .mainActor, from: .nextChange) { change in
          self.changes.append("\(change.old) → \(change.new)")
        })
      store.observe(owner: self, on: .mainActor) { label, state in
        label.changes.append("owner: \(state.todos.count)")
      }
    }
  }

  @Test func aMainActorObserverSetsMainActorStateWithoutAssumeIsolated() async {
    let store = ModelFixtures.store()
    let label = Label()
    label.show(store)
    store.dispatch(AddTodo(title: "Buy milk"))
    store.dispatch(SetQuery(query: "milk"))
    let deadline = ContinuousClock.now + hangGuard
    // The bodies ran on the main actor: `Store.observe(on: .mainActor)` checks it, isolated.
    while label.text != "1 todos" || !label.changes.contains(" → milk"),
      ContinuousClock.now < deadline
    {
      await Task.yield()
    }
    #expect(label.text == "1 todos")
    #expect(label.changes.contains(" → milk"))
    #expect(label.changes.contains("owner: 1"))
  }

  @Test func aValuesLoopInAMainActorContextSetsMainActorState() async {
    let store = ModelFixtures.store()
    let label = Label()
    Thread { store.dispatch(AddTodo(title: "Buy milk")) }.start()
    for await count in store.values(of: \.todos.count) where count == 1 {
      label.text = "\(count) todo"
      break
    }
    #expect(label.text == "1 todo")
  }
}

struct ModelTodo: Equatable, Sendable {
  var title: String
  var done = false
}

struct TodoListState: Equatable, Sendable {
  var todos: [ModelTodo] = []
  var query = ""
}

struct AddTodo: Action { let title: String }
struct ToggleTodo: Action { let index: Int }
struct SetQuery: Action { let query: String }

enum ModelFixtures {
  static let reducer = Reducer<TodoListState>()
    .on(AddTodo.self) { state, action in state.todos.append(ModelTodo(title: action.title)) }
    .on(ToggleTodo.self) { state, action in
      guard state.todos.indices.contains(action.index) else { return }
      state.todos[action.index].done.toggle()
    }
    .on(SetQuery.self) { state, action in state.query = action.query }

  static func store(todos: [String] = []) -> Store<TodoListState> {
    Store(
      initialState: TodoListState(todos: todos.map { ModelTodo(title: $0) }), reducer: reducer)
  }

  /// Waits (on the main actor, letting its hops run) until the model applied every change
  /// delivered to it; `false` after 10 seconds.
  @MainActor
  static func settled<State>(_ model: StoreModel<State>) async -> Bool {
    let deadline = ContinuousClock.now + hangGuard
    while model.hasPendingChanges {
      guard ContinuousClock.now < deadline else { return false }
      await Task.yield()
    }
    return true
  }
}

/// A flag set from an observation's `onChange` (which may run on any thread).
final class ModelFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  func set() { flag.store(true, ordering: .relaxed) }
  var isSet: Bool { flag.load(ordering: .relaxed) }
}
