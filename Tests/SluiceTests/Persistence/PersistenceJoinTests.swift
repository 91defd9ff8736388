import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// A persisted store that joins a busy shared lane saves every action it reduces.
@Suite struct PersistenceJoinTests {
  @Test func aPersistedStoreJoiningABusyLaneSavesItsFinalState() async throws {
    var exercised = false
    for _ in 0..<4 {
      let dispatcher = Dispatcher()
      let storage = InMemoryStorage()
      let dispatched = Atomic<Int>(0)
      let flooders = Task {
        await runOnThreads(2, timeout: hangGuardSeconds) { _ in
          // Until the store joined the lane, then a few more: the last actions it reduces come
          // right after it joined, while it is still being made (its many effects take time).
          while dispatcher.lane.orderedCores.isEmpty {
            dispatcher.dispatch(PstBump())
            dispatched.add(1, ordering: .relaxed)
          }
          for _ in 0..<5 { dispatcher.dispatch(PstBump()) }
        }
      }
      // The store is made while the lane is busy.
      #expect(await obsEventually { dispatched.load(ordering: .relaxed) > 100 })
      let store = await offPool {
        Store(
          initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
          effects: Effects<PstCounter>().combined(with: pstIdleEffects(1_000)),
          persistence: .inMemory("counter", storage).saving(.writeThrough))
      }
      #expect(await flooders.value)
      try await store.persistence?.flush()

      let saved = pstDecode(PstCounter.self, storage.record("sluice.counter")) ?? PstCounter()
      #expect(saved == store.state, "the saved state is the final state")
      exercised = exercised || store.state.value > 0
      if saved != store.state { break }
    }
    #expect(exercised, "the store reduced actions while joining")
  }
}

/// `count` effects for `PstNoop` that do nothing: they make a store slower to wire.
func pstIdleEffects(_ count: Int) -> Effects<PstCounter> {
  (0..<count).reduce(Effects<PstCounter>()) { effects, _ in effects.on(PstNoop.self) { _, _ in } }
}
