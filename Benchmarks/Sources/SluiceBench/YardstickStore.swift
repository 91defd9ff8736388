/// The yardstick: the store a careful developer writes by hand in 25 lines — a final class, an
/// `inout` reducer, typed closure observers called outside one pthread mutex, selecting
/// observers that compare their value with the last one. Every Sluice case has its yardstick
/// case, measured in the same run.
final class YardstickStore<State>: @unchecked Sendable {
  // @unchecked Sendable: `state` and `observers` are only touched under `mutex`.
  private let mutex = PthreadMutex()
  private var state: State
  private var observers: [(State) -> Void] = []

  init(_ state: State) { self.state = state }

  /// Calls `body` with the state after every dispatch.
  func observe(_ body: @escaping (State) -> Void) {
    mutex.lock()
    observers.append(body)
    mutex.unlock()
  }

  /// Calls `body` with the value `select` reads whenever it changed.
  func observe<Value: Equatable>(
    select: @escaping (State) -> Value, onChange body: @escaping (Value) -> Void
  ) {
    mutex.lock()
    var last = select(state)
    mutex.unlock()
    observe { state in
      let value = select(state)
      if value != last {
        last = value
        body(value)
      }
    }
  }

  /// Reduces `action` into the state, then calls the observers with the new state.
  func dispatch<A>(_ action: A, _ reduce: (inout State, A) -> Void) {
    mutex.lock()
    reduce(&state, action)
    let snapshot = state
    let observers = self.observers
    mutex.unlock()
    for observer in observers { observer(snapshot) }
  }
}
