import Foundation
import Sluice
import Testing

/// The request/response flows of Mini-Swift's README ("Advanced usage"), in both variants, with
/// effects playing Mini's `StoreController`. Every answer is given by the test (no sleeps), and
/// `settle()` waits for the effects and what they dispatched.
@Suite struct MiniSwiftReadmeFlowTests {
  // MARK: - Promises

  @Test func promisesRequestStartsLoadingAndTheControllerFillsIt() async {
    let controller = LdController<Int>()
    let store = MiniPromiseFixtures.store(controller)
    let seen = Recorder<Loadable<Int>>()
    let subscription = store.observe { state in seen.append(state.counter) }

    store.dispatch(MiniSetCounterAction(counter: 5))
    #expect(store.state.counter.isLoading)  // the request was reduced before dispatch returned
    controller.succeed(5)
    await store.settle()
    subscription.cancel()

    #expect(store.state.counter == .loaded(5))
    #expect(store.state.counter.value == 5)
    #expect(seen.values == [.idle, .loading(), .loaded(5)])
    #expect(controller.requests == [5])
    #expect(store.errors.recent.isEmpty)
    #expect(store.effectsInFlight == 0)
  }

  @Test func promisesWithAHandWrittenStoreController() async {
    // Mini's `TestStoreController.counter(_:)`, spelled as a plain effect that dispatches the
    // response itself.
    let controller = LdController<Int>()
    let effects = Effects<MiniPromiseState>()
      .on(MiniSetCounterAction.self, policy: .dropWhileRunning) { action, context in
        let counter = try await controller.request(action.counter)
        context.dispatch(MiniSetCounterActionLoaded(result: .success(counter)))
      }
    let store = Store(
      initialState: MiniPromiseState(), reducer: MiniPromiseFixtures.reducer, effects: effects)
    let seen = Recorder<Loadable<Int>>()
    let subscription = store.observe { state in seen.append(state.counter) }

    store.dispatch(MiniSetCounterAction(counter: 8))
    controller.succeed(8)
    await store.settle()
    subscription.cancel()

    #expect(seen.values == [.idle, .loading(), .loaded(8)])
  }

  @Test func aHandWrittenControllerThatThrowsLeavesThePromiseLoading() async {
    // What `Effects.load` is for: a plain effect that throws reports the error, and dispatches
    // nothing, so nobody completes the load.
    let controller = LdController<Int>()
    let effects = Effects<MiniPromiseState>()
      .on(MiniSetCounterAction.self) { action, context in
        let counter = try await controller.request(action.counter)
        context.dispatch(MiniSetCounterActionLoaded(result: .success(counter)))
      }
    let store = Store(
      initialState: MiniPromiseState(), reducer: MiniPromiseFixtures.reducer, effects: effects)

    store.dispatch(MiniSetCounterAction(counter: 8))
    controller.fail(LdFailure("server down"))
    await store.settle()

    #expect(store.state.counter.isLoading)
    #expect((store.errors.last?.error as? LdFailure)?.message == "server down")
  }

  @Test func promisesFailureShowsTheErrorKeepsTheOldValueAndReportsIt() async throws {
    let controller = LdController<Int>()
    let store = MiniPromiseFixtures.store(controller)
    let seen = Recorder<Loadable<Int>>()
    let subscription = store.observe { state in seen.append(state.counter) }

    store.dispatch(MiniSetCounterAction(counter: 1))
    controller.succeed(1)
    await store.settle()
    store.dispatch(MiniSetCounterAction(counter: 2))
    controller.fail(LdFailure("server down"))
    await store.settle()
    subscription.cancel()

    let counter = store.state.counter
    #expect(counter.isFailed)
    #expect(counter.isFinished)
    #expect(counter.value == 1)  // the old value, stale
    let error = try #require(counter.error)
    #expect((error.underlying as? LdFailure)?.message == "server down")

    #expect(
      seen.values == [.idle, .loading(), .loaded(1), .loading(keeping: 1), counter])
    #expect(seen.values.last?.isFailed == true)

    // The failed response carried its error to the store's channel (CompletableAction is
    // ErrorCarrying), with the response that carried it.
    #expect(store.errors.totalCount == 1)
    let event = try #require(store.errors.last)
    #expect((event.error as? LdFailure)?.message == "server down")
    #expect(event.source == .action("MiniSetCounterActionLoaded"))
    #expect(event.action is MiniSetCounterActionLoaded)
    #expect(store.dispatcher.errors.totalCount == 1)

    // A retry keeps showing the old value while it loads, and clears the error when it works.
    store.dispatch(MiniSetCounterAction(counter: 3))
    #expect(store.state.counter == .loading(keeping: 1))
    #expect(store.state.counter.error == nil)
    controller.succeed(3)
    await store.settle()
    #expect(store.state.counter == .loaded(3))
  }

  @Test func promisesSecondRequestWhileLoadingIsIgnored() async {
    let controller = LdController<Int>()
    let store = MiniPromiseFixtures.store(controller, policy: .dropWhileRunning)
    let seen = Recorder<Loadable<Int>>()
    let subscription = store.observe { state in seen.append(state.counter) }

    store.dispatch(MiniSetCounterAction(counter: 1))
    store.dispatch(MiniSetCounterAction(counter: 2))  // reducer guard + dropWhileRunning
    #expect(seen.values == [.idle, .loading()])
    controller.succeed(10)
    await store.settle()

    #expect(store.state.counter == .loaded(10))
    #expect(controller.requests == [1])

    // Once finished, a new request runs again.
    store.dispatch(MiniSetCounterAction(counter: 3))
    controller.succeed(30)
    await store.settle()
    subscription.cancel()

    #expect(controller.requests == [1, 3])
    #expect(seen.values == [.idle, .loading(), .loaded(10), .loading(keeping: 10), .loaded(30)])
  }

  @Test func promisesWithTheLatestPolicyTheNewestRequestWins() async {
    let controller = LdController<Int>()
    let store = MiniPromiseFixtures.store(controller, policy: .latest)
    let seen = Recorder<Loadable<Int>>()
    let subscription = store.observe { state in seen.append(state.counter) }

    store.dispatch(MiniSetCounterAction(counter: 1))
    store.dispatch(MiniSetCounterAction(counter: 2))  // cancels the first run
    controller.succeed(2)
    await store.settle()
    subscription.cancel()

    #expect(store.state.counter == .loaded(2))
    #expect(seen.values == [.idle, .loading(), .loaded(2)])
    #expect(controller.requests.sorted() == [1, 2])
    #expect(store.errors.totalCount == 0)  // a cancelled run neither reports nor dispatches
  }

  // MARK: - Tasks

  @Test func tasksRequestRunsTheTaskAndTheResponseCarriesCounterAndStatus() async {
    let controller = LdController<Int>()
    let store = MiniTaskFixtures.store(controller)
    let seen = Recorder<MiniTaskState>()
    let subscription = store.observe { state in seen.append(state) }

    store.dispatch(MiniSetCounterTaskAction(counter: 5))
    #expect(store.state.counterTask.isLoading)
    controller.succeed(5)
    await store.settle()
    subscription.cancel()

    #expect(store.state == MiniTaskState(counter: 5, counterTask: .succeeded()))
    #expect(
      seen.values == [
        MiniTaskState(),
        MiniTaskState(counterTask: .loading()),
        MiniTaskState(counter: 5, counterTask: .succeeded()),
      ])
  }

  @Test func tasksFailureCarriesAFailedTask() async throws {
    let controller = LdController<Int>()
    let store = MiniTaskFixtures.store(controller)

    store.dispatch(MiniSetCounterTaskAction(counter: 5))
    controller.fail(LdCode.offline(retryIn: 2))
    await store.settle()

    #expect(store.state.counter == nil)
    #expect(store.state.counterTask.isFailed)
    #expect(store.state.counterTask.error == LoadError(LdCode.offline(retryIn: 2)))
    #expect(store.state == MiniTaskState(counterTask: .failed(LdCode.offline(retryIn: 2))))
  }

  @Test func tasksGuardIgnoresRequestsWhileRunningAndResponsesWhileNot() async {
    let controller = LdController<Int>()
    let store = MiniTaskFixtures.store(controller)

    // A response nobody asked for is ignored.
    store.dispatch(MiniSetCounterTaskActionLoaded(counter: 99, counterTask: .succeeded()))
    #expect(store.state == MiniTaskState())

    store.dispatch(MiniSetCounterTaskAction(counter: 1))
    store.dispatch(MiniSetCounterTaskAction(counter: 2))
    controller.succeed(1)
    await store.settle()
    #expect(controller.requests == [1])
    #expect(store.state == MiniTaskState(counter: 1, counterTask: .succeeded()))

    // A late duplicate response does not overwrite the finished task.
    store.dispatch(MiniSetCounterTaskActionLoaded(counter: 99, counterTask: .succeeded()))
    #expect(store.state.counter == 1)
  }

  // MARK: - EmptyAction (a CompletableAction of Done)

  @Test func emptyActionCompletesATaskWithoutAValue() async {
    let controller = LdController<Int>()
    let store = MiniVoucherFixtures.store(controller)
    let seen = Recorder<TaskStatus>()
    let subscription = store.observe { state in seen.append(state.activation) }

    store.dispatch(MiniActivateVoucher(code: 42))
    controller.succeed(0)
    await store.settle()
    subscription.cancel()

    #expect(store.state.activation == .succeeded())
    #expect(seen.values == [.idle, .loading(), .succeeded()])
    #expect(controller.requests == [42])
    let payload: MiniActivateVoucherLoaded.Payload = Done()
    #expect(payload == Done())
  }

  @Test func emptyActionFailure() async throws {
    let controller = LdController<Int>()
    let store = MiniVoucherFixtures.store(controller)

    store.dispatch(MiniActivateVoucher(code: 42))
    controller.fail(LdCode.notFound)
    await store.settle()

    #expect(store.state.activation == .failed(LdCode.notFound))
    let event = try #require(store.errors.last)
    #expect(event.error as? LdCode == .notFound)
    #expect(event.source == .action("MiniActivateVoucherLoaded"))
  }

  // MARK: - dispatcher.dispatch(action, mode: .sync)

  @Test func dispatchingWithMiniDispatchModes() async {
    let controller = LdController<Int>()
    let dispatcher = Dispatcher()
    let store = MiniPromiseFixtures.store(controller, dispatcher: dispatcher)

    dispatcher.dispatch(MiniSetCounterAction(counter: 3), mode: .sync)
    #expect(store.state.counter.isLoading)
    controller.succeed(3)
    await dispatcher.settle()
    #expect(store.state.counter == .loaded(3))

    // What Mini's StoreController does: the response, dispatched asynchronously.
    store.dispatch(MiniSetCounterActionLoaded(result: .success(4)), mode: .async)
    await store.settle()
    #expect(store.state.counter == .loaded(4))

    store.dispatch(MiniSetCounterAction(counter: 5), mode: .sync)
    #expect(store.state.counter == .loading(keeping: 4))
    controller.fail(LdFailure("x"))
    await store.settle()
    #expect(store.state.counter.isFailed)
    #expect(dispatcher.errors.totalCount == 1)
    #expect(store.errors.totalCount == 1)
  }

  @Test func oneActionReachesEveryStoreThatHandlesIt() async {
    let controller = LdController<Int>()
    let dispatcher = Dispatcher()
    let withController = MiniPromiseFixtures.store(controller, dispatcher: dispatcher)
    let mirror = Store(
      initialState: MiniPromiseState(), dispatcher: dispatcher,
      reducer: MiniPromiseFixtures.reducer)

    dispatcher.dispatch(MiniSetCounterAction(counter: 6), mode: .sync)
    #expect(withController.state.counter.isLoading)
    #expect(mirror.state.counter.isLoading)
    controller.succeed(6)
    await dispatcher.settle()

    #expect(withController.state.counter == .loaded(6))
    #expect(mirror.state.counter == .loaded(6))
    #expect(controller.requests == [6])
  }
}
