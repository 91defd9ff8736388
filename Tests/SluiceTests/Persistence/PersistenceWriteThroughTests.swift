import Foundation
import SluiceTesting
import Testing

@testable import Sluice

private func savedValue(_ storage: InMemoryStorage, _ name: String = "counter") -> Int? {
  pstDecode(PstCounter.self, storage.record("sluice.\(name)"))?.value
}

@Suite struct PersistenceWriteThroughTests {
  @Test func everyDispatchIsDurableWhenItReturns() async throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(.writeThrough))
    #expect(store.persistence?.restoreOutcome.pstIsEmpty == true)
    #expect(storage.writes == 0)
    for value in 1...50 {
      store.dispatch(PstSet(value: value))
      #expect(savedValue(storage) == value)
      #expect(storage.writes == value)
    }
    #expect(store.persistence?.writeCount == 50)
    #expect(store.persistence?.hasPendingChanges == false)
    // Nothing left for a flush.
    try await store.persistence?.flush()
    #expect(storage.writes == 50)
  }

  @Test func sentAndAsyncActionsAreDurableOnceProcessed() async throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(.writeThrough))
    await store.send(PstSet(value: 3))
    #expect(savedValue(storage) == 3)
    for _ in 0..<20 { store.dispatch(PstBump(), mode: .async) }
    await store.send(PstBump())
    #expect(savedValue(storage) == 24)
  }

  @Test func everyDispatchIsOnDiskWhenItReturns() async throws {
    try await withPstFolder { folder in
      let store = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("counter", in: folder).saving(.writeThrough))
      let reader = JSONFileStorage(directory: folder)
      for value in [4, 8, 15, 16, 23, 42] {
        store.dispatch(PstSet(value: value))
        let record = try reader.read("sluice.counter")
        #expect(pstDecode(PstCounter.self, record)?.value == value)
      }
      // No temporary files are left behind.
      #expect(pstFiles(in: folder) == ["sluice.counter.json"])
    }
  }

  @Test func storesSharingADispatcherAreBothDurableWhenTheDispatchReturns() async throws {
    let storage = InMemoryStorage()
    let dispatcher = Dispatcher()
    let first = Store(
      initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
      persistence: .inMemory("first", storage).saving(.writeThrough))
    let second = Store(
      initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
      persistence: .inMemory("second", storage).saving(.writeThrough))
    dispatcher.dispatch(PstSet(value: 6))
    #expect(savedValue(storage, "first") == 6)
    #expect(savedValue(storage, "second") == 6)
    #expect(first.persistence?.writeCount == 1)
    #expect(second.persistence?.writeCount == 1)
  }

  @Test func anUnhandledActionWritesNothing() async throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(.writeThrough))
    store.dispatch(PstNoop())
    #expect(storage.writes == 0)
    #expect(store.persistence?.writeCount == 0)
  }

  @Test func aFailingWriteIsReportedAndRetriedOnceTheDiskWorks() async throws {
    let storage = InMemoryStorage()
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(.writeThrough))
    store.dispatch(PstSet(value: 1))
    #expect(savedValue(storage) == 1)

    storage.failAll(with: PstDiskError())
    store.dispatch(PstSet(value: 2))
    // The dispatch itself went through; the failure is reported, never thrown.
    #expect(store.state.value == 2)
    pstExpectReported(store, key: "sluice.counter") { $0.pstStorageOperation == "write" }
    #expect(dispatcher.errors.last?.source == .persistence("sluice.counter"))
    let underlying = try #require(store.persistence?.lastError)
    if case .storage(let key, _, let error) = underlying {
      #expect(key == "sluice.counter")
      #expect(error as? PstDiskError == PstDiskError())
    } else {
      Issue.record("unexpected error \(underlying)")
    }
    #expect(store.persistence?.hasPendingChanges == true)
    #expect(store.persistence?.writeCount == 1)
    storage.failAll(with: nil)
    #expect(savedValue(storage) == 1)

    // The next change writes the latest state.
    store.dispatch(PstSet(value: 3))
    #expect(savedValue(storage) == 3)
    #expect(store.persistence?.hasPendingChanges == false)
  }

  @Test func aFailedWriteIsWrittenByTheNextFlush() async throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).saving(.writeThrough))
    storage.failAll(with: PstDiskError())
    store.dispatch(PstSet(value: 9))
    #expect(store.errors.totalCount == 1)
    storage.failAll(with: nil)
    try await store.persistence?.flush()
    #expect(savedValue(storage) == 9)
  }
}
