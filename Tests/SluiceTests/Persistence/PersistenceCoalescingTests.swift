import Foundation
import SluiceTesting
import Testing

@testable import Sluice

/// A counter store saved to `storage`, coalesced on `clock`.
private func makeStore(
  _ storage: InMemoryStorage, _ clock: ManualClock,
  debounce: Duration = .seconds(2), maxDelay: Duration = .seconds(10)
) -> Store<PstCounter> {
  Store(
    initialState: PstCounter(), reducer: pstReducer,
    persistence: .inMemory("counter", storage)
      .saving(.coalesced(debounce: debounce, maxDelay: maxDelay)).clock(clock))
}

private func savedValue(_ storage: InMemoryStorage) -> Int? {
  pstDecode(PstCounter.self, storage.record("sluice.counter"))?.value
}

@Suite struct PersistenceCoalescingTests {
  @Test func theDefaultsAreFlasksTwoSecondsAndAMaximumOfTen() {
    let key = PersistenceKey<PstCounter>.inMemory("counter", InMemoryStorage())
    #expect(key.saving == .coalesced(debounce: .seconds(2), maxDelay: .seconds(10)))
    #expect(SaveMode.coalesced() == .coalesced(debounce: .seconds(2), maxDelay: .seconds(10)))
  }

  @Test func nothingIsWrittenBeforeTheDebounceThenTheLatestStateIs() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    store.dispatch(PstBump())
    store.dispatch(PstBump())
    // Writes happen off the dispatch path.
    #expect(storage.writes == 0)
    #expect(store.persistence?.hasPendingChanges == true)
    await pstSettle(store, clock)
    #expect(storage.writes == 0)

    await clock.advance(by: .milliseconds(1_999))
    await pstSettle(store, clock)
    #expect(storage.writes == 0)
    #expect(store.persistence?.hasPendingChanges == true)

    await clock.advance(by: .milliseconds(1))
    #expect(await pstWait { store.persistence?.writeCount == 1 })
    #expect(store.persistence?.hasPendingChanges == false)
    #expect(storage.writes == 1)
    #expect(savedValue(storage) == 2)

    // Nothing more to write, however long the clock runs.
    await clock.advance(by: .seconds(100))
    await pstSettle(store, clock)
    #expect(storage.writes == 1)
  }

  @Test func eachChangeRestartsTheDebounce() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    store.dispatch(PstSet(value: 1))
    await clock.advance(by: .milliseconds(1_500))
    store.dispatch(PstSet(value: 2))
    await clock.advance(by: .milliseconds(1_500))  // 3.0 s: 1.5 s after the last change
    await pstSettle(store, clock)
    #expect(storage.writes == 0)
    await clock.advance(by: .milliseconds(499))
    await pstSettle(store, clock)
    #expect(storage.writes == 0)
    await clock.advance(by: .milliseconds(1))  // 3.5 s: 2 s after the last change
    #expect(await pstWait { store.persistence?.writeCount == 1 })
    #expect(savedValue(storage) == 2)
  }

  @Test func aBurstOfChangesIsOneWrite() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    for _ in 0..<500 { store.dispatch(PstBump()) }
    await clock.advance(by: .seconds(2))
    #expect(await pstWait { store.persistence?.writeCount == 1 })
    #expect(savedValue(storage) == 500)
    await clock.advance(by: .seconds(20))
    await pstSettle(store, clock)
    #expect(storage.writes == 1)
  }

  @Test func continuousActivityCannotStarveTheWrite() async throws {
    // Flask postponed its archive for as long as changes kept coming. One change a second,
    // debounce 2 s, max delay 10 s: the first write happens 10 s after the first change.
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    for second in 0..<10 {
      store.dispatch(PstBump())  // at `second`; the state is now `second + 1`
      await clock.advance(by: .seconds(1))
      if second < 9 {
        await pstSettle(store, clock)
        #expect(storage.writes == 0, "written at \(second + 1) s")
      }
    }
    #expect(await pstWait { store.persistence?.writeCount == 1 }, "not written at 10 s")
    #expect(savedValue(storage) == 10)
  }

  @Test func sustainedActivityIsWrittenAtLeastEveryMaxDelay() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    var writeTimes: [Int] = []
    var lastWrite = 0
    for second in 0..<45 {
      store.dispatch(PstBump())
      await clock.advance(by: .seconds(1))
      let now = second + 1
      // At each multiple of the max delay, a write is due: wait for it.
      if now % 10 == 0 {
        let expected = writeTimes.count + 1
        let written = await pstWait { store.persistence?.writeCount == expected }
        #expect(written, "no write at \(now) s")
        if !written { break }
      } else {
        await pstSettle(store, clock)
      }
      let count = store.persistence?.writeCount ?? 0
      if count > writeTimes.count {
        writeTimes.append(now)
        // The record holds the latest state at the time of the write.
        #expect(savedValue(storage) == store.state.value)
        lastWrite = now
      }
      #expect(now - lastWrite <= 10, "nothing written for \(now - lastWrite) s")
    }
    #expect(writeTimes == [10, 20, 30, 40])
    // When the activity stops, the rest is written after the debounce.
    await clock.advance(by: .seconds(2))
    #expect(await pstWait { store.persistence?.writeCount == 5 })
    #expect(savedValue(storage) == 45)
    #expect(storage.writes == 5)
  }

  @Test func theMaxDelayStartsAtTheFirstUnsavedChange() async throws {
    // After a quiet write, a new burst gets a full window again.
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock, debounce: .seconds(3), maxDelay: .seconds(5))
    store.dispatch(PstBump())
    await clock.advance(by: .seconds(3))
    #expect(await pstWait { store.persistence?.writeCount == 1 })
    await clock.advance(by: .seconds(10))  // idle: 13 s
    for _ in 0..<4 {
      store.dispatch(PstBump())
      await clock.advance(by: .seconds(1))
    }
    // 17 s: 4 s after the first unsaved change, 1 s after the last.
    await pstSettle(store, clock)
    #expect(store.persistence?.writeCount == 1)
    store.dispatch(PstBump())
    await clock.advance(by: .seconds(1))  // 18 s: 5 s after the first unsaved change
    #expect(await pstWait { store.persistence?.writeCount == 2 })
    #expect(savedValue(storage) == 6)
  }

  @Test func anActionTheStoreDoesNotHandleIsNotSaved() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    store.dispatch(PstNoop())
    #expect(store.persistence?.hasPendingChanges == false)
    await clock.advance(by: .seconds(20))
    await pstSettle(store, clock)
    try await store.persistence?.flush()
    #expect(storage.writes == 0)
  }

  @Test func anActionThatLeavesAnEquatableStateUnchangedIsSavedAgain() async throws {
    // Documented: the persistence marks every step in which the store reduced an action,
    // without comparing states; an unchanged state is written again (identical bytes).
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    store.dispatch(PstSet(value: 5))
    try await store.persistence?.flush()
    #expect(storage.writes == 1)
    store.dispatch(PstSet(value: 5))  // handled, but the state is the same
    store.dispatch(PstSet(value: 5))
    let pendingAfterUnchanged = store.persistence?.hasPendingChanges
    try await store.persistence?.flush()
    #expect(pendingAfterUnchanged == true)
    #expect(storage.writes == 2)
    #expect(storage.record("sluice.counter").map(\.data) != nil)
  }
}
