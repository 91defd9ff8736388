import Foundation
import SluiceTesting
import Testing

@testable import Sluice

@Suite struct PersistenceRoundTripTests {
  @Test func inMemoryStateIsRestoredSynchronouslyByTheNextStore() async throws {
    let storage = InMemoryStorage()
    do {
      let store = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .inMemory("counter", storage))
      #expect(store.persistence?.restoreOutcome.pstIsEmpty == true)
      #expect(store.persistence?.key == "sluice.counter")
      #expect(store.persistence?.version == 1)
      store.dispatch(PstSet(value: 7))
      store.dispatch(PstBump())
      try await store.persistence?.flush()
      let record = try #require(storage.record("sluice.counter"))
      #expect(record.version == 1)
      #expect(pstDecode(PstCounter.self, record) == PstCounter(value: 8))
    }
    let writes = storage.writes
    let again = Store(
      initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("counter", storage))
    // Right after `Store(...)` returns: no await in between.
    #expect(again.state == PstCounter(value: 8))
    #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
    // Restoring writes nothing and leaves nothing pending.
    #expect(storage.writes == writes)
    #expect(again.persistence?.hasPendingChanges == false)
    #expect(again.persistence?.lastError == nil)
    #expect(again.errors.recent.isEmpty)
  }

  @Test func jsonFileStateIsRestoredSynchronouslyByTheNextStore() async throws {
    try await withPstFolder { folder in
      do {
        let store = Store(
          initialState: PstCounter(), reducer: pstReducer,
          persistence: .jsonFile("counter", in: folder))
        #expect(store.persistence?.restoreOutcome.pstIsEmpty == true)
        store.dispatch(PstSet(value: 41))
        store.dispatch(PstBump())
        try await store.persistence?.flush()
      }
      let file = folder.appendingPathComponent("sluice.counter.json")
      #expect(FileManager.default.fileExists(atPath: file.path))
      let again = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("counter", in: folder))
      #expect(again.state == PstCounter(value: 42))
      #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
    }
  }

  @Test func theNamespaceIsTheFlaskKeySpace() async throws {
    let storage = InMemoryStorage()
    let key = PersistenceKey<PstCounter>.inMemory("name", storage).namespace("Fx.myspace")
    #expect(key.fullKey == "Fx.myspace.name")
    #expect(key.namespace == "Fx.myspace")
    #expect(key.name == "name")
    #expect(PersistenceKey<PstCounter>.inMemory("name", storage).fullKey == "sluice.name")
    do {
      let store = Store(initialState: PstCounter(), reducer: pstReducer, persistence: key)
      #expect(store.persistence?.key == "Fx.myspace.name")
      store.dispatch(PstSet(value: 3))
      try await store.persistence?.flush()
    }
    #expect(storage.keys == ["Fx.myspace.name"])
    // Another key space does not see it.
    let other = Store(
      initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("name", storage))
    #expect(other.state.value == 0)
    #expect(other.persistence?.restoreOutcome.pstIsEmpty == true)
    let same = Store(initialState: PstCounter(), reducer: pstReducer, persistence: key)
    #expect(same.state.value == 3)
  }

  @Test func theNamespaceNamesTheJSONFile() async throws {
    try await withPstFolder { folder in
      do {
        let store = Store(
          initialState: PstCounter(), reducer: pstReducer,
          persistence: .jsonFile("name", in: folder).namespace("Fx.myspace"))
        store.dispatch(PstSet(value: 5))
        try await store.persistence?.flush()
      }
      #expect(pstFiles(in: folder) == ["Fx.myspace.name.json"])
      let again = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("name", in: folder).namespace("Fx.myspace"))
      #expect(again.state.value == 5)
    }
  }

  @Test func severalStoresShareOneInMemoryStorage() async throws {
    let storage = InMemoryStorage()
    do {
      let first = Store(
        initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("first", storage))
      let second = Store(
        initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("second", storage))
      let settings = Store(
        initialState: PstSettings(), reducer: pstSettingsReducer,
        persistence: .inMemory("settings", storage))
      first.dispatch(PstSet(value: 1))
      second.dispatch(PstSet(value: 2))
      settings.dispatch(PstSetTheme(theme: "dark"))
      try await first.persistence?.flush()
      try await second.persistence?.flush()
      try await settings.persistence?.flush()
    }
    #expect(storage.keys == ["sluice.first", "sluice.second", "sluice.settings"])
    let first = Store(
      initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("first", storage))
    let second = Store(
      initialState: PstCounter(), reducer: pstReducer, persistence: .inMemory("second", storage))
    let settings = Store(
      initialState: PstSettings(), reducer: pstSettingsReducer,
      persistence: .inMemory("settings", storage))
    #expect(first.state.value == 1)
    #expect(second.state.value == 2)
    #expect(settings.state.theme == "dark")
  }

  @Test func severalStoresOnOneDispatcherShareOneFolder() async throws {
    try await withPstFolder { folder in
      do {
        let dispatcher = Dispatcher()
        let first = Store(
          initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
          persistence: .jsonFile("first", in: folder))
        let second = Store(
          initialState: PstCounter(), dispatcher: dispatcher, reducer: pstReducer,
          persistence: .jsonFile("second", in: folder))
        // One action, reduced by both stores.
        dispatcher.dispatch(PstSet(value: 9), mode: .async)
        dispatcher.dispatch(PstBump(), mode: .async)
        try await first.persistence?.flush()
        try await second.persistence?.flush()
      }
      #expect(pstFiles(in: folder) == ["sluice.first.json", "sluice.second.json"])
      let first = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("first", in: folder))
      let second = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .jsonFile("second", in: folder))
      #expect(first.state.value == 10)
      #expect(second.state.value == 10)
    }
  }

  @Test func resetReturnsToTheInitialStateNotTheRestoredOne() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":7,"label":"x"}"#)])
    let store = Store(
      initialState: PstCounter(value: 1, label: "initial"), reducer: pstReducer,
      persistence: .inMemory("counter", storage))
    #expect(store.state == PstCounter(value: 7, label: "x"))
    store.reset()
    #expect(store.state == PstCounter(value: 1, label: "initial"))
    // The reset is a change like any other: it is saved.
    try await store.persistence?.flush()
    #expect(pstDecode(PstCounter.self, storage.record("sluice.counter")) == store.state)
  }

  @Test func aTransientPropertyStaysOutOfTheRecord() async throws {
    let storage = InMemoryStorage()
    do {
      let store = Store(
        initialState: PstSettings(), reducer: pstSettingsReducer,
        persistence: .inMemory("settings", storage))
      store.dispatch(PstSetTheme(theme: "dark"))
      store.dispatch(PstSetLoading(isLoading: true))
      #expect(store.state.isLoading)
      try await store.persistence?.flush()
    }
    let record = try #require(storage.record("sluice.settings"))
    let object = try #require(pstObject(record.data))
    #expect(Set(object.keys) == ["theme", "fontSize"])
    let again = Store(
      initialState: PstSettings(), reducer: pstSettingsReducer,
      persistence: .inMemory("settings", storage))
    #expect(again.state == PstSettings(theme: "dark", fontSize: 12, isLoading: false))
  }

  @Test func theRecordIsASelfDescribingEnvelope() async throws {
    let storage = InMemoryStorage()
    let before = Date()
    let store = Store(
      initialState: PstCounter(), reducer: pstReducer,
      persistence: .inMemory("counter", storage).version(4))
    store.dispatch(PstSet(value: 2))
    try await store.persistence?.flush()
    let envelope = try #require(pstObject(storage.bytes("sluice.counter")))
    #expect(envelope["key"] as? String == "sluice.counter")
    #expect((envelope["version"] as? NSNumber)?.intValue == 4)
    #expect((envelope["state"] as? [String: Any])?["value"] as? Int == 2)
    let record = try #require(storage.record("sluice.counter"))
    #expect(record.version == 4)
    #expect(record.updatedAt.timeIntervalSince(before) > -1)
    #expect(record.updatedAt.timeIntervalSinceNow < 1)
  }

  @Test func everyValueRoundTripsExactly() async throws {
    struct Values: Codable, Equatable, Sendable {
      var text = ""
      var ratio = 0.0
      var small: Int64 = 0
      var big: Int64 = 0
      var flags: [Bool] = []
      var optional: String? = "set"
      var nested: [String: [Int]] = [:]
    }
    struct Fill: Action {}
    let odd = Values(
      text: "é \u{1F600} \"quoted\" \\ \n\t end", ratio: 0.1 + 0.2, small: .min, big: .max,
      flags: [true, false], optional: nil, nested: ["a": [1, 0, -1], "": []])
    let reducer = Reducer<Values>().on(Fill.self) { state, _ in state = odd }
    let storage = InMemoryStorage()
    try await withPstFolder { folder in
      for key in [
        PersistenceKey<Values>.inMemory("values", storage), .jsonFile("values", in: folder),
      ] {
        do {
          let store = Store(initialState: Values(), reducer: reducer, persistence: key)
          store.dispatch(Fill())
          try await store.persistence?.flush()
        }
        let again = Store(initialState: Values(), reducer: reducer, persistence: key)
        #expect(again.state == odd)
        #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
      }
    }
  }

  @Test func anUnsignedValueAboveIntMaxRoundTrips() async throws {
    struct Seed: Codable, Equatable, Sendable {
      var seed: UInt64 = 0
    }
    struct Reseed: Action {}
    let reducer = Reducer<Seed>().on(Reseed.self) { state, _ in state.seed = .max }
    let storage = InMemoryStorage()
    do {
      let store = Store(
        initialState: Seed(), reducer: reducer, persistence: .inMemory("seed", storage))
      store.dispatch(Reseed())
      try await store.persistence?.flush()
    }
    let again = Store(
      initialState: Seed(), reducer: reducer, persistence: .inMemory("seed", storage))
    #expect(again.state.seed == .max)
    #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
  }

  @Test func aPreciseDecimalRoundTripsThroughAFile() async throws {
    // Money: more significant digits than a Double holds. Nothing reports the loss.
    struct Account: Codable, Equatable, Sendable {
      var balance: Decimal = 0
    }
    struct Deposit: Action {}
    let exact = Decimal(string: "12345678901234567890.123456789")!
    let reducer = Reducer<Account>().on(Deposit.self) { state, _ in state.balance = exact }
    try await withPstFolder { folder in
      do {
        let store = Store(
          initialState: Account(), reducer: reducer,
          persistence: .jsonFile("account", in: folder))
        store.dispatch(Deposit())
        try await store.persistence?.flush()
      }
      // The file holds every digit...
      let file = try Data(contentsOf: folder.appendingPathComponent("sluice.account.json"))
      #expect(String(decoding: file, as: UTF8.self).contains("12345678901234567890.123456789"))
      // ...but the restored state does not.
      let again = Store(
        initialState: Account(), reducer: reducer, persistence: .jsonFile("account", in: folder))
      #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
      #expect(again.state.balance == exact)
    }
  }
}
