import PropertyBased
import Sluice
import SluiceTesting
import Testing

// The Swift snippets of Sources/SluiceTesting/SluiceTesting.docc/PropertyTesting.md, compiled
// and run.

struct Todo: Equatable, Sendable {
  let id: Int
  var title: String
  var isDone = false
}

struct TodoList: Equatable, Sendable {
  var items: [Todo] = []
  var nextID = 1
  var openCount = 0
  var doneCount = 0
}

struct AddTodo: Action, Equatable { let title: String }
struct ToggleTodo: Action, Equatable { let id: Int }
struct ClearCompleted: Action, Equatable {}

let todoReducer = Reducer<TodoList>()
  .on(AddTodo.self) { list, action in
    list.items.append(Todo(id: list.nextID, title: action.title))
    list.nextID += 1
    list.openCount += 1
  }
  .on(ToggleTodo.self) { list, action in
    guard let index = list.items.firstIndex(where: { $0.id == action.id }) else { return }
    list.items[index].isDone.toggle()
    let delta = list.items[index].isDone ? 1 : -1
    list.doneCount += delta
    list.openCount -= delta
  }
  .on(ClearCompleted.self) { list, _ in
    list.items.removeAll { $0.isDone }  // the bug: doneCount should go back to 0
  }

let todoSteps = ActionGenerator<TodoList>()
  .action(weight: 3, Gen.letterOrNumber.string(of: 0...8).map { AddTodo(title: $0) })
  .action(weight: 2) { list in  // one of the todos there are; none while the list is empty
    list.items.isEmpty
      ? nil : Gen.int(in: 0...(list.items.count - 1)).map { ToggleTodo(id: list.items[$0].id) }
  }
  .action(ClearCompleted())

struct Taps: Equatable, Sendable {
  var taps = 0
  var confirmed = 0
}

struct Tap: Action, Equatable {}
struct DoubleTap: Action, Equatable {}
struct Confirmed: Action, Equatable {}

let tapReducer = Reducer<Taps>()
  .on(Tap.self) { state, _ in state.taps += 1 }
  .on(DoubleTap.self) { state, _ in state.taps += 2 }
  .on(Confirmed.self) { state, _ in state.confirmed += 1 }

let tapEffects = Effects<Taps>()
  .on(Tap.self) { _, context in
    try await context.dependencies.clock.sleep(for: .milliseconds(100))
    context.dispatch(Confirmed())
  }
  .on(DoubleTap.self) { _, context in
    for _ in 0..<2 {
      try await context.dependencies.clock.sleep(for: .milliseconds(100))
      context.dispatch(Confirmed())
    }
  }

let tapSteps = ActionGenerator<Taps>()
  .action(weight: 2, Tap())
  .action(DoubleTap())
  .advanceClock(weight: 2, by: Gen.int(in: 1...300).map { .milliseconds($0) })

let confirmedNeverExceedsTaps = StoreProperty(
  initialState: Taps(), reducer: tapReducer, effects: tapEffects, actions: tapSteps
)
.invariant("confirmed <= taps", code: "state.confirmed <= state.taps") {
  $0.confirmed <= $0.taps
}

@Suite struct PropertyTestingArticleTests {
  /// The property of the article, which finds the planted bug.
  static func countsAddUpProperty() async throws -> (StoreProperty<TodoList>, PropertyFailure?) {
    var property: StoreProperty<TodoList>?
    var failure: PropertyFailure?
    await withKnownIssue {
      let countsAddUp = StoreProperty(
        initialState: TodoList(), reducer: todoReducer, actions: todoSteps,
        testStore: "TestStore(initialState: TodoList(), reducer: todoReducer)"
      )
      .invariant(
        "open + done == all", code: "state.openCount + state.doneCount == state.items.count"
      ) { $0.openCount + $0.doneCount == $0.items.count }
      await countsAddUp.check()
      property = countsAddUp
      failure = await countsAddUp.check()
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the invariant \"open + done == all\"") }
    }
    return (try #require(property), failure)
  }

  @Test func theInvariantFindsThePlantedBugAndPrintsTheTestOfTheArticle() async throws {
    let (_, found) = try await Self.countsAddUpProperty()
    let failure = try #require(found)
    #expect(failure.steps == 3)
    #expect(
      failure.testCode.hasPrefix(
        """
        @Test func openDoneAll() async {
          let store = TestStore(initialState: TodoList(), reducer: todoReducer)
          await store.send(AddTodo(title: "")) {
        """))
  }

  @Test func theModelFindsItToo() async throws {
    let (countsAddUp, _) = try await Self.countsAddUpProperty()
    let matchesTheModel = countsAddUp.model { list, action in
      switch action {
      case let add as AddTodo:
        list.items.append(Todo(id: list.nextID, title: add.title))
        list.nextID += 1
      case let toggle as ToggleTodo:
        if let index = list.items.firstIndex(where: { $0.id == toggle.id }) {
          list.items[index].isDone.toggle()
        }
      case is ClearCompleted:
        list.items.removeAll { $0.isDone }
      default:
        break
      }
      list.doneCount = list.items.count { $0.isDone }  // the model recounts
      list.openCount = list.items.count - list.doneCount
    }
    var found: PropertyFailure?
    await withKnownIssue {
      found = await matchesTheModel.check()
    }
    let failure = try #require(found)
    // The model's check comes first, at the action that departs from it.
    #expect(failure.description.hasPrefix("the state departs from the reference model"))
    #expect(failure.steps == 3)
  }

  @Test func theEffectsOfTheTapsKeepTheInvariant() async {
    #expect(await confirmedNeverExceedsTaps.check() == nil)
  }

  @Test func aCustomStepRunsATransaction() async throws {
    let withTransactions = todoSteps.step(
      "reset the counts in a transaction",
      code: "await store.store.dispatcher.transaction { tx in "
        + "try tx.update(store.store) { $0.doneCount = 0 } }"
    ) { store in
      await store.dispatcher.transaction { tx in try tx.update(store) { $0.doneCount = 0 } }
    }
    // With the bug fixed, resetting the counts is what breaks the invariant.
    let fixed = todoReducer.on(ClearCompleted.self) { list, _ in list.doneCount = 0 }
    let property = StoreProperty(
      initialState: TodoList(), reducer: fixed, actions: withTransactions
    )
    .invariant("open + done == all") { $0.openCount + $0.doneCount == $0.items.count }
    var found: PropertyFailure?
    await withKnownIssue {
      found = await property.check()
    }
    let failure = try #require(found)
    #expect(failure.testCode.contains("await store.store.dispatcher.transaction { tx in "))
  }
}
