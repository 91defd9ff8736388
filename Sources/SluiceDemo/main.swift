import Sluice

struct Counter: Equatable, Sendable {
  var value = 0
  var step = 1
}

struct Increment: Action {}
struct StepChanged: Action { let step: Int }

let store = Store(
  initialState: Counter(),
  reducer: Reducer<Counter>()
    .on(Increment.self) { state, _ in state.value += state.step }
    .on(StepChanged.self) { state, action in state.step = action.step })

let subscription = store.observe(\.value) { change in
  print("value: \(change.old) → \(change.new)")
}
store.dispatch(Increment())
store.dispatch(StepChanged(step: 5))
store.dispatch(Increment())
print("final state: \(store.state)")
subscription.cancel()
