import Foundation
import Sluice
import SluiceTesting
import Testing

/// A counter store whose coalescing clock never moves: only `flush`, `saveNow` and the end of
/// the store write.
private func makeStore(_ storage: InMemoryStorage, _ clock: ManualClock = ManualClock())
  -> Store<PstCounter>
{
  Store(
    initialState: PstCounter(), reducer: pstReducer,
    persistence: .inMemory("counter", storage).clock(clock))
}

private func savedValue(_ storage: InMemoryStorage) -> Int? {
  pstDecode(PstCounter.self, storage.record("sluice.counter"))?.value
}

@Suite struct PersistenceFlushTests {
  @Test func flushIsABarrierForSyncAsyncAndSentActions() async throws {
    let storage = InMemoryStorage()
    let store = makeStore(storage)
    for _ in 0..<100 { store.dispatch(PstBump()) }
    for _ in 0..<200 { store.dispatch(PstBump(), mode: .async) }
    for _ in 0..<10 { await store.send(PstBump()) }
    for _ in 0..<300 { store.dispatch(PstBump(), mode: .async) }
    store.dispatch(PstSet(value: 10_000), mode: .async)
    for _ in 0..<5 { store.dispatch(PstBump(), mode: .async) }
    try await store.persistence?.flush()
    // Everything dispatched before `flush` is in the storage, and nothing else is pending.
    #expect(savedValue(storage) == 10_005)
    #expect(store.state.value == 10_005)
    #expect(store.persistence?.hasPendingChanges == false)
    #expect(store.persistence?.writeCount == 1)
    #expect(storage.writes == 1)
  }

  @Test func flushWaitsForAsyncActionsOfTheSharedDispatcher() async throws {
    let storage = InMemoryStorage()
    let dispatcher = Dispatcher()
    let first = Store(
      initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
      persistence: .inMemory("first", storage).clock(ManualClock()))
    let second = Store(
      initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
      persistence: .inMemory("second", storage).clock(ManualClock()))
    for _ in 0..<1_000 { dispatcher.dispatch(PstBump(), mode: .async) }
    try await second.persistence?.flush()
    #expect(pstDecode(PstCounter.self, storage.record("sluice.second"))?.value == 1_000)
    try await first.persistence?.flush()
    #expect(pstDecode(PstCounter.self, storage.record("sluice.first"))?.value == 1_000)
  }

  @Test func flushWithNothingPendingWritesNothing() async throws {
    let storage = InMemoryStorage()
    let store = makeStore(storage)
    #expect(store.persistence?.hasPendingChanges == false)
    try await store.persistence?.flush()
    #expect(storage.writes == 0)
    #expect(store.persistence?.writeCount == 0)
    #expect(storage.record("sluice.counter") == nil)

    store.dispatch(PstBump())
    #expect(store.persistence?.hasPendingChanges == true)
    try await store.persistence?.flush()
    #expect(store.persistence?.hasPendingChanges == false)
    #expect(store.persistence?.writeCount == 1)
    try await store.persistence?.flush()
    try await store.persistence?.flush()
    #expect(store.persistence?.writeCount == 1)
    #expect(storage.writes == 1)
  }

  @Test func saveNowWritesEvenAnUnchangedState() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":7,"label":""}"#)])
    let store = makeStore(storage)
    #expect(store.state.value == 7)
    let before = try #require(storage.record("sluice.counter"))
    try await store.persistence?.saveNow()
    #expect(store.persistence?.writeCount == 1)
    #expect(storage.writes == 2)
    let after = try #require(storage.record("sluice.counter"))
    #expect(pstDecode(PstCounter.self, after) == PstCounter(value: 7))
    #expect(after.updatedAt >= before.updatedAt)
    try await store.persistence?.saveNow()
    #expect(store.persistence?.writeCount == 2)
  }

  @Test func saveNowOnAFreshStoreWritesTheInitialState() async throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(value: 3, label: "fresh"), reducer: pstReducer,
      persistence: .inMemory("counter", storage).clock(ManualClock()))
    try await store.persistence?.saveNow()
    #expect(
      pstDecode(PstCounter.self, storage.record("sluice.counter"))
        == PstCounter(value: 3, label: "fresh"))
  }

  @Test func switchingPersistenceOffStopsWritesAndOnWritesTheLatestState() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = makeStore(storage, clock)
    let persistence = try #require(store.persistence)
    #expect(persistence.isEnabled)
    store.dispatch(PstBump())  // pending when switched off
    persistence.isEnabled = false
    #expect(!persistence.isEnabled)
    for _ in 0..<5 { store.dispatch(PstBump()) }
    // The writer wakes, finds persistence off and writes nothing.
    await clock.advance(by: .seconds(60))
    #expect(await pstWait { clock.sleeperCount == 0 })
    try await persistence.flush()
    #expect(storage.writes == 0)
    #expect(storage.record("sluice.counter") == nil)

    persistence.isEnabled = true
    #expect(persistence.isEnabled)
    try await persistence.flush()
    #expect(savedValue(storage) == 6)
    #expect(persistence.writeCount == 1)

    // Switched on again, changes are saved as before, after the debounce.
    store.dispatch(PstBump())
    await clock.advance(by: .seconds(2))
    #expect(await pstWait { persistence.writeCount == 2 })
    #expect(savedValue(storage) == 7)
  }

  @Test func switchingOnAgainWithoutChangesWritesTheCurrentState() async throws {
    let storage = InMemoryStorage()
    let store = makeStore(storage)
    let persistence = try #require(store.persistence)
    persistence.isEnabled = false
    store.dispatch(PstSet(value: 4))
    persistence.isEnabled = true
    persistence.isEnabled = true  // switching on twice is harmless
    try await persistence.flush()
    #expect(savedValue(storage) == 4)
    #expect(storage.writes == 1)
  }

  @Test func thePendingStateIsWrittenWhenTheStoreGoesAway() async throws {
    let storage = InMemoryStorage()
    do {
      let store = makeStore(storage)
      for _ in 0..<3 { store.dispatch(PstBump()) }
      #expect(store.persistence?.hasPendingChanges == true)
      #expect(storage.writes == 0)
    }
    // No flush: the store's end wrote it.
    #expect(savedValue(storage) == 3)
  }

  @Test func thePendingStateIsWrittenToAFileWhenTheStoreGoesAway() async {
    await withPstFolder { folder in
      do {
        let store = Store(
          initialState: PstCounter(), reducer: pstReducer,
          persistence: .jsonFile("counter", in: folder))
        store.dispatch(PstSet(value: 12))
      }
      let again = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("counter", in: folder))
      #expect(again.state.value == 12)
    }
  }

  @Test func aStoreWithNothingPendingWritesNothingWhenItGoesAway() async throws {
    let storage = InMemoryStorage()
    do {
      let store = makeStore(storage)
      store.dispatch(PstBump())
      try await store.persistence?.flush()
    }
    #expect(storage.writes == 1)
    do { _ = makeStore(storage) }
    #expect(storage.writes == 1)
  }
}

/// Flushes racing dispatches from other threads and the coalescing writer.
@Suite struct PersistenceFlushConcurrencyTests {
  /// Runs `body(index)` on `count` threads of their own (never the global queues) and returns
  /// when all have finished.
  private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let remaining = PstCountdown(count) { continuation.resume() }
      for index in 0..<count {
        let thread = Thread {
          body(index)
          remaining.done()
        }
        thread.start()
      }
    }
  }

  @Test func flushesRacingDispatchesOnThreadsEndWithTheLatestState() async throws {
    let storage = InMemoryStorage()
    // A writer that writes as soon as it can, racing the dispatches and the flushes.
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(
        .coalesced(debounce: .zero, maxDelay: .zero)))
    async let flushes: Void = {
      for _ in 0..<50 {
        try await store.persistence?.flush()
        await Task.yield()
      }
    }()
    await onThreads(4) { _ in
      for _ in 0..<500 { store.dispatch(PstBump()) }
    }
    try await flushes
    try await store.persistence?.flush()
    #expect(store.state.value == 2_000)
    #expect(savedValue(storage) == 2_000)
  }

  @Test func aChangeDuringABackgroundWriteIsNeverLost() async throws {
    // Bursts of changes from a thread race a writer that writes as soon as it can. After each
    // burst, without a flush, the writer must catch up with the state by itself (a change that
    // lands while a write starts must not be marked saved); and after a flush the record must
    // hold the state at once.
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage)
        .saving(.coalesced(debounce: .zero, maxDelay: .zero)))
    for round in 0..<200 {
      let burst = 1 + round % 7
      await onThreads(1) { _ in
        for _ in 0..<burst { store.dispatch(PstBump()) }
      }
      let expected = store.state.value
      let caughtUp = await pstWait { savedValue(storage) == expected }
      #expect(caughtUp, "round \(round): the record stayed at \(savedValue(storage) ?? -1)")
      if !caughtUp { break }
      await onThreads(1) { _ in store.dispatch(PstBump()) }
      try await store.persistence?.flush()
      #expect(savedValue(storage) == expected + 1, "round \(round): behind after flush")
    }
  }
}
