import Sluice
import Testing

/// The synchronous `transaction`, from async code (where the async overload is preferred).
func effTransaction(
  _ dispatcher: Dispatcher, _ body: @escaping @Sendable (Dispatcher.Transaction) throws -> Void
) -> TransactionOutcome {
  dispatcher.transaction { try body($0) }
}

@Suite struct EffectTransactionTests {
  private func makeStore(
    dispatcher: Dispatcher, gates: EffGates, seen: Recorder<Int>
  ) -> Store<EffState> {
    effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        await gates.wait()
        seen.append(context.state.count)
        context.dispatch(EffResult(value: action.value))
      })
  }

  // Effects of actions reduced in a transaction start when it commits, not before.
  @Test func committedTransactionStartsEffectsAtCommit() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let seen = Recorder<Int>()
    let store = makeStore(dispatcher: dispatcher, gates: gates, seen: seen)
    let inFlightInside = Recorder<Int>()

    let outcome = effTransaction(dispatcher) { tx in
      tx.dispatch(EffTrigger(value: 1))
      tx.dispatch(EffTrigger(value: 2))
      inFlightInside.append(dispatcher.effectsInFlight)
    }

    guard case .committed = outcome else {
      Issue.record("expected a commit, got \(outcome)")
      return
    }
    #expect(inFlightInside.values == [0], "effects started before the commit")
    #expect(dispatcher.effectsInFlight == 2)
    gates.open()
    await effSettle(dispatcher)

    #expect(seen.values == [2, 2])
    #expect(store.state.count == 2)
    #expect(store.state.results.sorted() == [1, 2])
  }

  // The async transaction starts its effects at commit too.
  @Test func asyncCommittedTransactionStartsEffects() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let seen = Recorder<Int>()
    let store = makeStore(dispatcher: dispatcher, gates: gates, seen: seen)
    gates.open()

    let outcome = await dispatcher.transaction { tx in tx.dispatch(EffTrigger(value: 5)) }
    await effSettle(store)

    guard case .committed = outcome else {
      Issue.record("expected a commit, got \(outcome)")
      return
    }
    #expect(store.state.results == [5])
  }

  // An aborted transaction starts no effect.
  @Test func abortedTransactionStartsNoEffect() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let seen = Recorder<Int>()
    let store = makeStore(dispatcher: dispatcher, gates: gates, seen: seen)
    gates.open()

    let outcome = effTransaction(dispatcher) { tx in
      tx.dispatch(EffTrigger(value: 1))
      try tx.abort()
    }
    await effSettle(dispatcher)

    guard case .aborted = outcome else {
      Issue.record("expected an abort, got \(outcome)")
      return
    }
    #expect(seen.values.isEmpty)
    #expect(store.state == EffState())
  }

  // A transaction whose body throws starts no effect either.
  @Test func failedTransactionStartsNoEffect() async {
    let dispatcher = Dispatcher()
    let gates = EffGates()
    let seen = Recorder<Int>()
    let store = makeStore(dispatcher: dispatcher, gates: gates, seen: seen)
    gates.open()

    let outcome = effTransaction(dispatcher) { tx in
      tx.dispatch(EffTrigger(value: 1))
      throw EffError(code: 1)
    }
    await effSettle(dispatcher)

    guard case .failed = outcome else {
      Issue.record("expected a failure, got \(outcome)")
      return
    }
    #expect(seen.values.isEmpty)
    #expect(store.state == EffState())
  }

  // An error carried by an action reduced in a transaction is reported at commit, not on abort.
  @Test func carriedErrorsAreReportedOnlyWhenTheTransactionCommits() {
    let dispatcher = Dispatcher()
    let store = effStore(dispatcher: dispatcher)

    dispatcher.transaction { tx in
      tx.dispatch(EffCarry(value: 1, error: EffError(code: 1)))
      try tx.abort()
    }
    #expect(store.errors.totalCount == 0)
    #expect(dispatcher.errors.totalCount == 0)

    dispatcher.transaction { tx in tx.dispatch(EffCarry(value: 2, error: EffError(code: 2))) }
    #expect(store.state.results == [2])
    #expect((store.errors.last?.error as? EffError) == EffError(code: 2))
    #expect(dispatcher.errors.totalCount == 1)
  }
}
