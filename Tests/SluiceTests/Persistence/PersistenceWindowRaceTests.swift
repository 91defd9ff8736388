import Foundation
import Sluice
import Testing

/// A change inside an open save window only records its time, without the persistence's lock:
/// a change that races with the write closing that window must still be written, by that write
/// or by the next window.
@Suite struct PersistenceWindowRaceTests {
  @Test func changesRacingWithTheWritesThatCloseTheirWindowsAreAllWritten() async {
    let storage = InMemoryStorage()
    // Zero windows: the writer writes as soon as it wakes, so windows open and close all the
    // time while the changes keep coming.
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(
        .coalesced(debounce: .zero, maxDelay: .zero)))
    let changes = 20_000
    let finished = await runOnThreads(1) { _ in
      for index in 1...changes {
        store.dispatch(PstBump())
        if index % 256 == 0 { sched_yield() }
      }
    }
    #expect(finished)
    #expect(store.state.value == changes)
    // No flush: the writer alone must get to the last change. (A change whose step the write
    // that closed its window already read may open one more window: it is written again,
    // after which nothing is pending.)
    let persistence = store.persistence
    let caughtUp = await pstWait {
      pstDecode(PstCounter.self, storage.record("sluice.counter"))?.value == changes
        && persistence?.hasPendingChanges == false
    }
    #expect(caughtUp, "a change was left unwritten")
    #expect((store.persistence?.writeCount ?? 0) >= 1)
  }
}
