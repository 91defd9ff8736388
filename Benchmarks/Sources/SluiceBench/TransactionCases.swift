import Sluice

/// `transaction.two_stores` and its comparison `transaction.two_dispatches`.
enum TransactionCases {
  static let all: [BenchCase] = [
    BenchCase(name: "transaction.two_stores", make: twoStores),
    BenchCase(name: "transaction.two_dispatches", make: twoDispatches),
  ]

  /// Two small `Equatable` stores on one dispatcher, no observers: a `Counter` that handles
  /// `Increment`, and a `Meter` that handles `Sample`.
  struct Fixture {
    let dispatcher = Dispatcher()
    let counter: Store<Counter>
    let meter: Store<Meter>

    init() {
      counter = Store(
        initialState: Counter(value: 0), dispatcher: dispatcher,
        reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
      meter = Store(
        initialState: Meter(reading: 0, samples: 0), dispatcher: dispatcher,
        reducer: Reducer<Meter>().on(Sample.self) { state, action in
          state.reading = action.reading
          state.samples += 1
        })
    }

    /// Runs `body`, which performs `operations` operations, and requires that each changed
    /// both stores once.
    func check(_ name: String, operations: Int, _ body: () -> Void) {
      let before = (counter.state.value, meter.state.samples)
      body()
      let after = (counter.state.value, meter.state.samples)
      require(
        after.0 - before.0 == operations && after.1 - before.1 == operations, name,
        "expected both stores to change \(operations) times, saw \(after.0 - before.0) and "
          + "\(after.1 - before.1)")
    }
  }

  /// One `dispatcher.transaction` per operation, updating both stores.
  static func twoStores() -> (Int) -> Void {
    let name = "transaction.two_stores"
    let fixture = Fixture()
    let (dispatcher, counter, meter) = (fixture.dispatcher, fixture.counter, fixture.meter)
    fixture.check(name, operations: 10) {
      for reading in 0..<10 {
        let outcome = dispatcher.transaction { tx in
          try tx.update(counter) { $0.value += 1 }
          try tx.update(meter) { state in
            state.reading = reading
            state.samples += 1
          }
        }
        var committed = false
        if case .committed = outcome { committed = true }
        require(committed, name, "the transaction did not commit: \(outcome)")
      }
    }
    return { iterations in
      fixture.check(name, operations: iterations) {
        for reading in 0..<iterations {
          dispatcher.transaction { tx in
            try tx.update(counter) { $0.value += 1 }
            try tx.update(meter) { state in
              state.reading = reading
              state.samples += 1
            }
          }
        }
      }
    }
  }

  /// The same two changes as two plain dispatches, one action for each store.
  static func twoDispatches() -> (Int) -> Void {
    let name = "transaction.two_dispatches"
    let fixture = Fixture()
    let dispatcher = fixture.dispatcher
    fixture.check(name, operations: 10) {
      for reading in 0..<10 {
        dispatcher.dispatch(Increment())
        dispatcher.dispatch(Sample(reading: reading))
      }
    }
    return { iterations in
      fixture.check(name, operations: iterations) {
        for reading in 0..<iterations {
          dispatcher.dispatch(Increment())
          dispatcher.dispatch(Sample(reading: reading))
        }
      }
    }
  }
}
