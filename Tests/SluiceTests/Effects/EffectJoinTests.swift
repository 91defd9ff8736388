import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// Counts from any thread.
final class EffCounter: Sendable {
  private let value = Atomic<Int>(0)

  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// `count` effects for `EffPing` that do nothing: they make a store's effects slower to wire.
func effIdleEffects(_ count: Int) -> Effects<EffState> {
  (0..<count).reduce(Effects<EffState>()) { effects, _ in effects.on(EffPing.self) { _, _ in } }
}

/// A store that joins a busy shared lane has its effects from its first action on.
@Suite struct EffectJoinTests {
  @Test func aStoreJoiningABusyLaneStartsAnEffectForEveryActionItReduces() async {
    var exercised = false
    for _ in 0..<4 {
      let dispatcher = Dispatcher()
      let dispatched = Atomic<Int>(0)
      let flooders = Task {
        await runOnThreads(2, timeout: hangGuardSeconds) { _ in
          // Until the store joined the lane, then a few more: they come right after it joined,
          // while it is still being made (its many effects take time).
          while dispatcher.lane.orderedCores.isEmpty {
            dispatcher.dispatch(EffTrigger(value: 0))
            dispatched.add(1, ordering: .relaxed)
          }
          for _ in 0..<20 { dispatcher.dispatch(EffTrigger(value: 0)) }
        }
      }
      // The store joins while the lane is busy.
      #expect(await obsEventually { dispatched.load(ordering: .relaxed) > 100 })
      let runs = EffCounter()
      let store = await offPool {
        Store(
          initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
          effects: effIdleEffects(500).on(EffTrigger.self) { _, _ in runs.increment() })
      }
      #expect(await flooders.value)
      await effSettle(dispatcher)

      #expect(runs.count == store.state.count, "an effect for every action the store reduced")
      exercised = exercised || store.state.count > 0
      if runs.count != store.state.count { break }
    }
    #expect(exercised, "the store reduced actions")
  }
}
