import Foundation
import PropertyBased
import Sluice
import SluiceTesting
import Testing

// The worked example of the PropertyTesting article: a todo list that keeps its counts, and a
// planted bug (clearing the completed todos forgets to count them out).

private struct Todo: Equatable, Sendable {
  let id: Int
  var title: String
  var isDone = false
}

private struct TodoList: Equatable, Sendable {
  var items: [Todo] = []
  var nextID = 1
  var openCount = 0
  var doneCount = 0
}

private struct AddTodo: Action, Equatable { let title: String }
private struct ToggleTodo: Action, Equatable { let id: Int }
private struct ClearCompleted: Action, Equatable {}

private func todoReducer(clearingCounts: Bool) -> Reducer<TodoList> {
  Reducer<TodoList>()
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
      list.items.removeAll { $0.isDone }
      if clearingCounts { list.doneCount = 0 }  // the planted bug: false forgets this
    }
}

private let reducer = todoReducer(clearingCounts: false)

private let steps = ActionGenerator<TodoList>()
  .action(weight: 3, Gen.letterOrNumber.string(of: 0...8).map { AddTodo(title: $0) })
  .action(weight: 2) { list in
    list.items.isEmpty
      ? nil : Gen.int(in: 0...(list.items.count - 1)).map { ToggleTodo(id: list.items[$0].id) }
  }
  .action(ClearCompleted())

private func countsAddUp(_ reducer: Reducer<TodoList>) -> StoreProperty<TodoList> {
  StoreProperty(
    initialState: TodoList(), reducer: reducer, actions: steps,
    testStore: "TestStore(initialState: TodoList(), reducer: reducer)"
  )
  .invariant(
    "open + done == all", code: "state.openCount + state.doneCount == state.items.count"
  ) { $0.openCount + $0.doneCount == $0.items.count }
}

@Suite struct StorePropertyTests {
  @Test func theCorrectReducerKeepsTheInvariant() async {
    let failure = await countsAddUp(todoReducer(clearingCounts: true)).check(count: 200)
    #expect(failure == nil)
  }

  @Test func thePlantedBugIsFoundAndShrunkToThreeActions() async throws {
    var found: PropertyFailure?
    await withKnownIssue {
      found = await countsAddUp(reducer).check(count: 500, length: 5...30)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the invariant \"open + done == all\"") }
    }
    let failure = try #require(found)
    #expect(failure.steps <= 3)
    #expect(failure.originalSteps >= failure.steps)
    #expect(failure.message.contains("Replay it with check(seed: \"\(failure.seed)\")"))
    // The printed test is the one pasted below, which compiles and fails the same way.
    #expect("@Test " + Self.pastedTest() == failure.testCode)
  }

  @Test func thePrintedTestReproducesTheFailure() async {
    await withKnownIssue {
      await openDoneAll()
    } matching: { issue in
      "\(issue)".contains("state.openCount + state.doneCount")
    }
  }

  @Test func aSeedReplaysTheSameFailure() async throws {
    var first: PropertyFailure?
    await withKnownIssue {
      first = await countsAddUp(reducer).check(count: 500, length: 5...30)
    }
    let failure = try #require(first)
    var again: PropertyFailure?
    await withKnownIssue {
      again = await countsAddUp(reducer).check(length: 5...30, seed: failure.seed)
    }
    let replayed = try #require(again)
    #expect(replayed.seed == failure.seed)
    #expect(replayed.originalSteps == failure.originalSteps)
    #expect(replayed.shrinkRuns == failure.shrinkRuns)
    #expect(replayed.testCode == failure.testCode)
  }

  @Test func aSeedThatIsNotOneFailsTheTest() async {
    await withKnownIssue {
      _ = await countsAddUp(reducer).check(seed: "not a seed")
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("is not a seed of a property run") }
    }
  }

  @Test func aReferenceModelFindsTheBugAndThePrintedTestAssertsTheModel() async throws {
    let property = StoreProperty(initialState: TodoList(), reducer: reducer, actions: steps)
      .model { list, action in
        // The simple model: the counts are always recomputed.
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
        default: break
        }
        list.doneCount = list.items.count { $0.isDone }
        list.openCount = list.items.count - list.doneCount
      }
    var found: PropertyFailure?
    await withKnownIssue {
      found = await property.check(count: 500, length: 5...30)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("departs from the reference model") }
    }
    let failure = try #require(found)
    #expect(failure.steps == 3)
    #expect(failure.testCode.contains("@Test func matchesTheModel() async {"))
    // The last assertion is the model's: the done count goes back to zero.
    #expect(
      failure.testCode.hasSuffix(
        """
          await store.send(ClearCompleted()) {
            $0.items = []
            $0.doneCount = 0
          }
        }
        """))
  }

  /// The body of `openDoneAll()` below, as written in this file.
  static func pastedTest() -> String {
    let source = (try? String(contentsOfFile: "\(#filePath)", encoding: .utf8)) ?? ""
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("func openDoneAll()") }),
      let end = lines[start...].firstIndex(where: { $0 == "}" })
    else { return "" }
    return lines[start...end].joined(separator: "\n")
  }
}

// Printed by thePlantedBugIsFoundAndShrunkToThreeActions, pasted without its @Test attribute
// (a test that fails on purpose), and called by thePrintedTestReproducesTheFailure.
func openDoneAll() async {
  let store = TestStore(initialState: TodoList(), reducer: reducer)
  await store.send(AddTodo(title: "")) {
    $0.items = [Todo(id: 1, title: "", isDone: false)]
    $0.nextID = 2
    $0.openCount = 1
  }
  await store.send(ToggleTodo(id: 1)) {
    $0.items = [Todo(id: 1, title: "", isDone: true)]
    $0.openCount = 0
    $0.doneCount = 1
  }
  await store.send(ClearCompleted()) {
    $0.items = []
  }
  let state = store.state
  #expect(state.openCount + state.doneCount == state.items.count)  // open + done == all
}
