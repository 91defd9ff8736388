import Sluice
import Testing

/// Asynchronous work started by an action that carries a snapshot of the state; an effect on
/// that action does the work (what `Command`, `AsyncCommand` and `store.launch` did).
/// Their other guarantees are those of every effect: settle waits for it
/// (`EffectSettleTests`), its error is reported (`EffectErrorTests`), it is cancelled by id and
/// with its store (`EffectCancellationTests`).
@Suite struct CommandEffectTests {
  // The command's snapshot travels in the action; the effect reads the live state through its
  // context, and may dispatch after an await.
  @Test func theActionCarriesTheSnapshotAndTheEffectDispatchesAfterAwait() async {
    let gates = EffGates()
    let seen = Recorder<String>()
    let store = effStore(
      effects: Effects<EffState>().on(EffStart.self) { action, context in
        await gates.wait()
        seen.append("snapshot \(action.snapshot), now \(context.state.count)")
        context.dispatch(EffResult(value: action.snapshot))
      })

    store.dispatch(EffStart(snapshot: store.state.count))
    store.dispatch(EffIncrement())
    store.dispatch(EffIncrement())
    gates.open()
    await effSettle(store)

    #expect(seen.values == ["snapshot 0, now 2"])
    #expect(store.state.results == [0])
  }

  // Conditional dispatch after an await, both ways.
  @Test func theEffectDispatchesConditionally() async {
    let store = effStore(
      effects: Effects<EffState>().on(EffStart.self) { _, context in
        await Task.yield()
        guard context.state.count < 10 else { return }
        await context.send(EffIncrement())
      })

    store.dispatch(EffStart(snapshot: store.state.count))
    await effSettle(store)
    #expect(store.state.count == 1)

    for _ in 0..<9 { store.dispatch(EffIncrement()) }
    store.dispatch(EffStart(snapshot: store.state.count))
    await effSettle(store)
    #expect(store.state.count == 10)
  }
}
