import Foundation
import Sluice
import Testing

@Suite struct EffectConcurrencyTests {
  private let threads = 4
  private let perThread = 25

  /// The query texts the store reduced, as integers, in lane order.
  private func laneOrder(_ store: Store<EffState>) -> [Int] {
    store.state.queries.compactMap { Int($0) }
  }

  // `.every` runs once per action dispatched from many threads; every result arrives.
  @Test func everyFromManyThreadsRunsForEveryAction() async {
    let store = effStore(
      effects: Effects<EffState>().on(EffQuery.self) { action, context in
        context.dispatch(EffResult(value: Int(action.text) ?? -1))
      })
    let perThread = self.perThread

    await runOnThreads(threads) { thread in
      for index in 0..<perThread { store.dispatch(EffQuery(text: "\(thread * 1000 + index)")) }
    }
    await effSettle(store)

    #expect(store.state.results.sorted() == laneOrder(store).sorted())
    #expect(store.state.results.count == threads * perThread)
  }

  // `.latest` under concurrent dispatch: only the run of the last action the lane processed
  // reaches the store.
  @Test func latestFromManyThreadsKeepsTheLastProcessedAction() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffQuery.self, policy: .latest) { action, context in
        await gates.wait()
        context.dispatch(EffResult(value: Int(action.text) ?? -1))
      })
    let perThread = self.perThread

    await runOnThreads(threads) { thread in
      for index in 0..<perThread { store.dispatch(EffQuery(text: "\(thread * 1000 + index)")) }
    }
    gates.open()
    await effSettle(store)

    #expect(laneOrder(store).count == threads * perThread)
    #expect(store.state.results == [laneOrder(store).last ?? -2])
  }

  // `.dropWhileRunning` under concurrent dispatch: only the first processed action runs.
  @Test func dropWhileRunningFromManyThreadsRunsOnlyTheFirstProcessedAction() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffQuery.self, policy: .dropWhileRunning) {
        action, context in
        await gates.wait()
        context.dispatch(EffResult(value: Int(action.text) ?? -1))
      })
    let perThread = self.perThread

    await runOnThreads(threads) { thread in
      for index in 0..<perThread { store.dispatch(EffQuery(text: "\(thread * 1000 + index)")) }
    }
    gates.open()
    await effSettle(store)

    #expect(store.state.results == [laneOrder(store).first ?? -2])
  }

  // Cancelling from one thread while others dispatch: every run either finishes or is
  // cancelled, and settle still returns.
  @Test func cancellingWhileOtherThreadsDispatch() async {
    let gates = EffGates()
    let started = Recorder<Int>()
    let finished = Recorder<Int>()
    let cancelled = Recorder<Int>()
    let dispatcher = Dispatcher()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffTrigger.self, id: "work") { action, context in
        started.append(action.value)
        do {
          try await gates.waitOrCancel()
          finished.append(action.value)
          context.dispatch(EffResult(value: action.value))
        } catch {
          cancelled.append(action.value)
        }
      })
    let perThread = self.perThread

    await runOnThreads(threads + 1) { thread in
      if thread == 0 {
        for round in 0..<perThread {
          if round.isMultiple(of: 2) {
            dispatcher.cancelEffects(id: "work")
          } else {
            store.cancelEffects()
          }
        }
      } else {
        for index in 0..<perThread { store.dispatch(EffTrigger(value: thread * 1000 + index)) }
      }
    }
    #expect(await effEventually { started.count == threads * perThread })
    gates.open()
    await effSettle(store)

    #expect(finished.count + cancelled.count == threads * perThread)
    #expect(store.state.results.sorted() == finished.values.sorted())
    #expect(store.effectsInFlight == 0)
    #expect(store.errors.totalCount == 0)
  }

  // Errors thrown by many concurrent effects are all counted and observed, on both channels.
  @Test func concurrentErrorsAreAllReported() async {
    let dispatcher = Dispatcher()
    let store = effStore(
      dispatcher: dispatcher,
      effects: Effects<EffState>().on(EffFail.self) { action, _ in
        throw EffError(code: action.value)
      })
    let observed = Recorder<Int>()
    let subscription = dispatcher.errors.observe { event in
      observed.append((event.error as? EffError)?.code ?? -1)
    }
    let perThread = self.perThread

    await runOnThreads(threads) { thread in
      for index in 0..<perThread { store.dispatch(EffFail(value: thread * 1000 + index)) }
    }
    await effSettle(store)

    let expected = (0..<threads).flatMap { thread in
      (0..<perThread).map { thread * 1000 + $0 }
    }
    #expect(store.errors.totalCount == threads * perThread)
    #expect(dispatcher.errors.totalCount == threads * perThread)
    #expect(observed.values.sorted() == expected.sorted())
    subscription.cancel()
  }

  // Several tasks settling at once all return once the effects are done.
  @Test func concurrentSettleCallsAllReturn() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffTrigger.self) { action, context in
        await gates.wait()
        context.dispatch(EffResult(value: action.value))
      })
    store.dispatch(EffTrigger(value: 1))
    #expect(await effEventually { gates.waiting() == 1 })

    let returned = Recorder<Int>()
    let waiters = (0..<8).map { index in
      Task {
        await store.settle()
        returned.append(index)
      }
    }
    await effYield()
    #expect(returned.count == 0)
    gates.open()
    #expect(await effEventually { returned.count == 8 })
    #expect(store.state.results == [1])
    for waiter in waiters { _ = await waiter.value }
  }
}
