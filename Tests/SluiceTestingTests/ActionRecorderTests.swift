import Sluice
import SluiceTesting
import Testing

private struct Dropped: Action {}

@Suite struct ActionRecorderTests {
  @Test func asMiddleware() {
    let recorder = ActionRecorder<Counter>()
    let store = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware])
    store.dispatch(Increment())
    store.dispatch(SetText(text: "a"))
    store.dispatch(Increment())
    #expect(recorder.actions.count == 3)
    #expect(recorder.actions.first is Increment)
    #expect(recorder.actions.last is Increment)
    #expect(!recorder.actions(of: Increment.self).isEmpty)
    #expect(!recorder.actions(of: SetText.self).isEmpty)
    #expect(recorder.actions(of: Pong.self).isEmpty)
    #expect(recorder.actions(of: Increment.self).count == 2)
    #expect(recorder.actions(of: Pong.self).count == 0)
    #expect(recorder.actions(of: SetText.self).map(\.text) == ["a"])
    #expect(store.state.count == 2)
  }

  @Test func middlewareRecordsActionsNoReducerHandles() {
    let recorder = ActionRecorder<Counter>()
    let store = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware])
    store.dispatch(Ping(value: 1))
    #expect(recorder.actions(of: Ping.self).map(\.value) == [1])
  }

  @Test func middlewareRecordsActionsLaterDroppedButNotEarlierDropped() {
    let recorder = ActionRecorder<Counter>()
    let drop = Middleware<Counter>.intercept { action, _ in action is Dropped ? .drop : .proceed }
    let first = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware, drop])
    first.dispatch(Dropped())
    #expect(recorder.actions(of: Dropped.self).count == 1)

    let late = ActionRecorder<Counter>()
    let second = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [drop, late.middleware])
    second.dispatch(Dropped())
    second.dispatch(Increment())
    #expect(late.actions(of: Dropped.self).count == 0)
    #expect(late.actions(of: Increment.self).count == 1)
  }

  @Test func recordsWhatEffectsDispatch() async {
    let recorder = ActionRecorder<Counter>()
    let store = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware],
      effects: counterEffects(clock: ManualClock()))
    store.dispatch(Burst())
    await store.settle()
    #expect(recorder.actions.count == 4)
    #expect(!recorder.actions(of: Burst.self).isEmpty)
    #expect(recorder.actions(of: Pong.self) == [Pong(value: 3)])
  }

  @Test func attached() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    store.dispatch(Increment())  // before the recorder: not recorded
    let recorder = ActionRecorder(recording: store)
    store.dispatch(SetText(text: "b"))
    store.dispatch(Ping(value: 5))  // no reducer handles it: the store still sees it
    #expect(recorder.actions.count == 2)
    #expect(recorder.actions(of: Increment.self).isEmpty)
    #expect(recorder.actions(of: SetText.self).map(\.text) == ["b"])
    #expect(recorder.actions(of: Ping.self).map(\.value) == [5])
  }

  @Test func attachedRecordsACommittedTransaction() {
    let dispatcher = Dispatcher()
    let store = Store(initialState: Counter(), dispatcher: dispatcher, reducer: counterReducer)
    let recorder = ActionRecorder(recording: store)
    dispatcher.transaction("edit") { transaction in
      transaction.dispatch(Increment())
      transaction.dispatch(Increment())
    }
    #expect(recorder.actions(of: TransactionCommitted.self).map(\.label) == ["edit"])
    #expect(recorder.actions(of: Increment.self).isEmpty)
    #expect(store.state.count == 2)
  }

  @Test func clear() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    let recorder = ActionRecorder(recording: store)
    store.dispatch(Increment())
    recorder.clear()
    #expect(recorder.actions.isEmpty)
    #expect(recorder.actions(of: Increment.self).isEmpty)
    store.dispatch(Increment())
    #expect(recorder.actions(of: Increment.self).count == 1)
  }

  @Test func stop() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    let recorder = ActionRecorder(recording: store)
    store.dispatch(Increment())
    recorder.stop()
    store.dispatch(Increment())
    store.dispatch(Noop())
    #expect(recorder.actions(of: Increment.self).count == 1)
    #expect(recorder.actions.count == 1)
    recorder.stop()  // twice is fine
    #expect(store.state.count == 2)
  }

  @Test func stopOnAMiddlewareRecorderDoesNothing() {
    let recorder = ActionRecorder<Counter>()
    let store = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [recorder.middleware])
    recorder.stop()
    store.dispatch(Increment())
    #expect(recorder.actions(of: Increment.self).count == 1)
  }

  @Test func deinitializationStopsRecording() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var recorder: ActionRecorder<Counter>? = ActionRecorder(recording: store)
    store.dispatch(Increment())
    #expect(recorder?.actions(of: Increment.self).count == 1)
    recorder = nil
    store.dispatch(Increment())
    #expect(store.state.count == 2)
  }
}
