import Sluice
import Testing

/// Records its snapshot and the live state after the gate opens, then dispatches the snapshot.
struct EffSnapshotCommand: AsyncCommand {
  let gates: EffGates
  let seen: Recorder<String>
  func execute(state: EffState, context: EffectContext<EffState>) async throws {
    await gates.wait()
    seen.append("snapshot \(state.count), now \(context.state.count)")
    context.dispatch(EffResult(value: state.count))
  }
}

/// Conditional dispatch after an await.
struct EffRefreshIfBelowTen: AsyncCommand {
  func execute(state: EffState, context: EffectContext<EffState>) async throws {
    await Task.yield()
    guard state.count < 10 else { return }
    await context.send(EffIncrement())
  }
}

struct EffFailingCommand: AsyncCommand {
  let code: Int
  func execute(state: EffState, context: EffectContext<EffState>) async throws {
    throw EffError(code: code)
  }
}

struct EffWaitingCommand: AsyncCommand {
  let gates: EffGates
  let outcome: Recorder<String>
  func execute(state: EffState, context: EffectContext<EffState>) async throws {
    do {
      try await gates.waitOrCancel()
      outcome.append("finished")
    } catch {
      outcome.append("cancelled")
      throw error
    }
    context.dispatch(EffResult(value: 1))
  }
}

@Suite struct AsyncCommandEffectTests {
  // An async command gets a snapshot taken at dispatch, reads the live state through its
  // context, and may dispatch after an await.
  @Test func asyncCommandGetsASnapshotAndDispatchesAfterAwait() async {
    let gates = EffGates()
    let seen = Recorder<String>()
    let store = effStore()

    let task = store.dispatch(EffSnapshotCommand(gates: gates, seen: seen))
    store.dispatch(EffIncrement())
    store.dispatch(EffIncrement())
    gates.open()
    await effCompletes { await task.finish() }
    await effSettle(store)

    #expect(seen.values == ["snapshot 0, now 2"])
    #expect(store.state.results == [0])
  }

  // Conditional dispatch in an async command, both ways.
  @Test func asyncCommandConditionalDispatch() async {
    let store = effStore()

    await effCompletes { await store.dispatch(EffRefreshIfBelowTen()).finish() }
    #expect(store.state.count == 1)

    for _ in 0..<9 { store.dispatch(EffIncrement()) }
    await effCompletes { await store.dispatch(EffRefreshIfBelowTen()).finish() }
    #expect(store.state.count == 10)
  }

  // An async command's error is reported with source `.command(type)` and no action.
  @Test func asyncCommandErrorsAreReportedAsCommand() async {
    let dispatcher = Dispatcher()
    let store = effStore(dispatcher: dispatcher)

    store.dispatch(EffFailingCommand(code: 5))
    await effSettle(store)

    for channel in [store.errors, dispatcher.errors] {
      #expect(channel.totalCount == 1)
      #expect((channel.last?.error as? EffError) == EffError(code: 5))
      #expect(channel.last?.source == .command("EffFailingCommand"))
      #expect(channel.last?.action == nil)
    }
  }

  // `store.launch { context in }` runs a thunk as a task; its errors are `.command("launch")`.
  @Test func launchRunsAnAsyncThunk() async {
    let store = effStore()

    let task = store.launch { context in
      await context.send(EffResult(value: context.state.results.count + 1))
      context.dispatch(EffResult(value: context.state.results.count + 1))
    }
    await effCompletes { await task.finish() }
    await effSettle(store)
    #expect(store.state.results == [1, 2])

    store.launch { _ in throw EffError(code: 8) }
    await effSettle(store)
    #expect(store.errors.last?.source == .command("launch"))
    #expect((store.errors.last?.error as? EffError) == EffError(code: 8))
  }

  // `finish()` resumes once the work finished; settle waits for launched work too.
  @Test func finishAndSettleWaitForTheCommand() async {
    let gates = EffGates()
    let outcome = Recorder<String>()
    let store = effStore()

    let task = store.dispatch(EffWaitingCommand(gates: gates, outcome: outcome))
    #expect(await effEventually { gates.waiting() == 1 })
    #expect(store.effectsInFlight == 1)
    let finished = Recorder<Bool>()
    let waiter = Task {
      await task.finish()
      finished.append(true)
    }
    await effYield()
    #expect(finished.count == 0, "finish() returned before the command finished")

    gates.open()
    #expect(await effEventually { finished.count == 1 })
    await effSettle(store)
    #expect(outcome.values == ["finished"])
    #expect(store.state.results == [1])
    #expect(!task.isCancelled)
    _ = await waiter.value
  }

  // `cancel()` cancels the work; its error after cancellation is not reported.
  @Test func cancelStopsTheCommand() async {
    let gates = EffGates()
    let outcome = Recorder<String>()
    let store = effStore()

    let task = store.dispatch(EffWaitingCommand(gates: gates, outcome: outcome))
    #expect(await effEventually { gates.waiting() == 1 })
    task.cancel()
    #expect(task.isCancelled)
    await effCompletes { await task.finish() }
    await effSettle(store)

    #expect(outcome.values == ["cancelled"])
    #expect(store.state.results.isEmpty)
    #expect(store.errors.totalCount == 0)
  }

  // Async commands and launched thunks are cancelled when their store goes away.
  @Test func asyncCommandsAreCancelledWhenTheStoreGoesAway() async {
    let gates = EffGates()
    let outcome = Recorder<String>()
    let dispatcher = Dispatcher()
    let witness = effStore(dispatcher: dispatcher)
    var store: Store<EffState>? = effStore(dispatcher: dispatcher, reducer: Reducer())
    weak let weakStore = store

    let command = store?.dispatch(EffWaitingCommand(gates: gates, outcome: outcome))
    let launched = store?.launch { context in
      await gates.wait(1)
      outcome.append(context.isCancelled ? "launch cancelled" : "launch live")
      context.dispatch(EffResult(value: 2))
    }
    #expect(await effEventually { gates.waitingTotal == 2 })
    store = nil
    #expect(weakStore == nil, "running commands kept the store alive")
    gates.open(1)

    await effCompletes { await command?.finish() }
    await effCompletes { await launched?.finish() }
    await effSettle(dispatcher)
    #expect(command?.isCancelled == true)
    #expect(launched?.isCancelled == true)
    #expect(outcome.values.sorted() == ["cancelled", "launch cancelled"])
    #expect(witness.state.results.isEmpty)
    #expect(dispatcher.errors.totalCount == 0)
  }
}
