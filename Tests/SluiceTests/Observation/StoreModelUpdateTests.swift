import Foundation
import Observation
import SluiceTestSupport
import Testing

@testable import Sluice

/// When a model shows a change: at once after its own dispatch, in a later main-actor hop
/// otherwise, and never by blocking the main actor on the lane.
@MainActor
@Suite struct StoreModelUpdateTests {
  struct HoldLane: Action {}

  @Test func aDispatchOnTheMainActorShowsItsResultAtOnce() {
    let model = StoreModel(ModelFixtures.store())
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model[\.todos.count]
    } onChange: {
      invalidated.set()
    }

    model.dispatch(AddTodo(title: "Buy milk"))
    #expect(invalidated.isSet)
    #expect(model[\.todos.count] == 1)

    let query = model.binding(\.query, to: { SetQuery(query: $0) })
    query.set("milk")
    #expect(query.get() == "milk")
  }

  @Test func aDispatchWhileAnotherThreadHoldsTheLaneReturnsAtOnceAndShowsLater() async {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let releaseTimedOut = Recorder<Bool>()
    let reducer = ModelFixtures.reducer.on(HoldLane.self) { _, _ in
      entered.signal()
      releaseTimedOut.append(release.wait(timeout: hangGuardDeadline()) == .timedOut)
    }
    let store = Store(initialState: TodoListState(), reducer: reducer)
    let model = StoreModel(store)
    #expect(model.todos.isEmpty)
    Thread { store.dispatch(HoldLane()) }.start()
    #expect(await wait(for: entered))

    // The lane is held by the other thread: the dispatch queues the action and returns.
    model.dispatch(AddTodo(title: "Buy milk"))
    #expect(model.todos.isEmpty)
    release.signal()

    await model.send(SetQuery(query: "after"))  // FIFO: resumes once AddTodo was reduced too
    #expect(await ModelFixtures.settled(model))
    #expect(model.todos.map(\.title) == ["Buy milk"])
    #expect(releaseTimedOut.values == [false], "the dispatch blocked the main actor")
  }
}
