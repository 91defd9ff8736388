import Foundation
import Sluice
import SluiceTesting
import Testing

private struct PsCounter: Codable, Equatable, Sendable {
  var value = 0
}

private struct PsBump: Action {}

/// Reduced without changing anything.
private struct PsNothing: Action {}

private let psReducer = Reducer<PsCounter>()
  .on(PsBump.self) { state, _ in state.value += 1 }
  .on(PsNothing.self) { _, _ in }

/// A persisted state that is not `Equatable`.
private struct PsLog: Codable, Sendable {
  var lines: [String] = []
}

private struct PsAppend: Action { let line: String }

private let psLogReducer = Reducer<PsLog>()
  .on(PsAppend.self) { state, action in state.lines.append(action.line) }
  .on(PsNothing.self) { _, _ in }

@Suite struct PersistenceSmokeTests {
  @Test func anEquatableStateCallsWholeStateObserversOnlyOnRealChanges() async throws {
    let store = Store(
      initialState: PsCounter(), reducer: psReducer, persistence: .inMemory("c", InMemoryStorage()))
    let seen = Recorder<Int>()
    let subscription = store.observe(from: .nextChange) { seen.append($0.value) }
    store.dispatch(PsNothing())
    store.dispatch(PsBump())
    store.dispatch(PsNothing())
    await store.settle()
    subscription.cancel()
    #expect(seen.values == [1])
  }

  @Test func aStateThatIsNotEquatableIsPersistedAndSeenAfterEveryAction() async throws {
    let storage = InMemoryStorage()
    do {
      let store = Store(
        initialState: PsLog(), reducer: psLogReducer, persistence: .inMemory("log", storage))
      let seen = Recorder<[String]>()
      let subscription = store.observe(from: .nextChange) { seen.append($0.lines) }
      store.dispatch(PsAppend(line: "a"))
      store.dispatch(PsNothing())
      await store.settle()
      subscription.cancel()
      // Without an equality, every action the store reduces counts as a change.
      #expect(seen.values == [["a"], ["a"]])
      try await store.persistence?.flush()
    }
    let again = Store(
      initialState: PsLog(), reducer: psLogReducer, persistence: .inMemory("log", storage))
    #expect(again.state.lines == ["a"])
  }

  @Test func inMemoryRoundTripWithFlush() async throws {
    let storage = InMemoryStorage()
    do {
      let store = Store(
        initialState: PsCounter(), reducer: psReducer, persistence: .inMemory("c", storage))
      store.dispatch(PsBump())
      store.dispatch(PsBump())
      try await store.persistence?.flush()
      #expect(storage.record("sluice.c")?.version == 1)
    }
    let again = Store(
      initialState: PsCounter(), reducer: psReducer, persistence: .inMemory("c", storage))
    #expect(again.state.value == 2)
  }

  @Test func coalescesWithDebounceAndMaxDelay() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = Store(
      initialState: PsCounter(), reducer: psReducer,
      persistence: .inMemory("c", storage)
        .saving(.coalesced(debounce: .seconds(2), maxDelay: .seconds(10))).clock(clock))
    for _ in 0..<9 {
      store.dispatch(PsBump())
      await clock.advance(by: .seconds(1))
    }
    #expect(storage.writes == 0)
    store.dispatch(PsBump())
    await clock.advance(by: .seconds(1))
    // The write is due at the clock's time; it runs on the persistence queue (hang guard only).
    await pstWait { storage.writes > 0 }
    #expect(storage.writes == 1)
    #expect(store.persistence?.hasPendingChanges == false)
  }

  @Test func jsonFileRoundTrip() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
      let store = Store(
        initialState: PsCounter(), reducer: psReducer, persistence: .jsonFile("c", in: folder))
      store.dispatch(PsBump())
      try await store.persistence?.flush()
    }
    let again = Store(
      initialState: PsCounter(), reducer: psReducer, persistence: .jsonFile("c", in: folder))
    #expect(again.state.value == 1)
    if case .restored(1) = again.persistence?.restoreOutcome {
    } else {
      Issue.record("not restored")
    }
  }
}
