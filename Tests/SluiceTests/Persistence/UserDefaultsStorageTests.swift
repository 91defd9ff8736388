import Foundation
import SluiceTesting
import Testing

@testable import Sluice

/// The property-list file a suite is written to on Linux (`$XDG_CONFIG_HOME` or `~/.config`).
private func plistFile(of suite: String) -> URL {
  let configuration =
    ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
  return configuration.appendingPathComponent("\(suite).plist")
}

/// The value under `key` in the suite's file on disk, bypassing every in-memory cache.
private func onDisk(_ key: String, suite: String) -> Any? {
  guard let data = try? Data(contentsOf: plistFile(of: suite)),
    let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
      as? [String: Any]
  else { return nil }
  return plist[key]
}

private func counterStore(_ suite: String, name: String = "counter") -> Store<PstCounter> {
  Store(
    initialState: PstCounter(), reducer: pstReducer,
    persistence: .userDefaults(name, suiteName: suite).clock(ManualClock()))
}

@Suite struct UserDefaultsStorageTests {
  @Test func aStateRoundTripsThroughASuite() async throws {
    try await withPstSuite { suite in
      do {
        let store = counterStore(suite)
        #expect(store.persistence?.restoreOutcome.pstIsEmpty == true)
        store.dispatch(PstSet(value: 90))
        try await store.persistence?.flush()
      }
      let again = counterStore(suite)
      #expect(again.state.value == 90)
      #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
      // Another `UserDefaults` object on the suite sees the record's bytes.
      let bytes = try #require(UserDefaults(suiteName: suite)?.data(forKey: "sluice.counter"))
      let record = try UserDefaultsStorage(suiteName: suite).read("sluice.counter")
      #expect(pstDecode(PstCounter.self, record) == PstCounter(value: 90))
      #expect((pstObject(bytes)?["state"] as? [String: Any])?["value"] as? Int == 90)
    }
  }

  @Test func flushSynchronizesTheSuiteToDisk() async throws {
    try await withPstSuite { suite in
      let store = counterStore(suite)
      store.dispatch(PstSet(value: 17))
      #expect(onDisk("sluice.counter", suite: suite) == nil)
      try await store.persistence?.flush()
      let bytes = try #require(onDisk("sluice.counter", suite: suite) as? Data)
      #expect((pstObject(bytes)?["state"] as? [String: Any])?["value"] as? Int == 17)
    }
  }

  @Test func saveNowSynchronizesTheSuiteToDisk() async throws {
    try await withPstSuite { suite in
      let store = counterStore(suite)
      try await store.persistence?.saveNow()
      #expect(onDisk("sluice.counter", suite: suite) is Data)
    }
  }

  @Test func theEndOfTheStoreSynchronizesTheSuiteToDisk() async throws {
    await withPstSuite { suite in
      do {
        let store = counterStore(suite)
        store.dispatch(PstSet(value: 5))
      }
      #expect(onDisk("sluice.counter", suite: suite) is Data)
    }
  }

  @Test func writeThroughIsOnDiskWhenTheDispatchReturns() async throws {
    await withPstSuite { suite in
      let store = Store(
        initialState: PstCounter(), reducer: pstReducer,
        persistence: .userDefaults("counter", suiteName: suite).saving(.writeThrough))
      store.dispatch(PstSet(value: 3))
      #expect(UserDefaults(suiteName: suite)?.data(forKey: "sluice.counter") != nil)
      // (Intermittent only because another suite's `synchronize()`, in a test running at the
      // same time, may write this one too.)
      let bytes = onDisk("sluice.counter", suite: suite) as? Data
      #expect((pstObject(bytes)?["state"] as? [String: Any])?["value"] as? Int == 3)
    }
  }

  @Test func theFlaskKeySpaceIsTheDefaultsKey() async throws {
    try await withPstSuite { suite in
      do {
        let store = Store(
          initialState: PstCounter(), reducer: pstReducer,
          persistence: .userDefaults("name", suiteName: suite).namespace("Fx.myspace"))
        #expect(store.persistence?.key == "Fx.myspace.name")
        store.dispatch(PstSet(value: 2))
        try await store.persistence?.flush()
      }
      let defaults = try #require(UserDefaults(suiteName: suite))
      #expect(defaults.data(forKey: "Fx.myspace.name") != nil)
      #expect(defaults.object(forKey: "sluice.name") == nil)
    }
  }

  @Test func severalStoresShareOneSuite() async throws {
    try await withPstSuite { suite in
      do {
        let first = counterStore(suite, name: "first")
        let second = counterStore(suite, name: "second")
        first.dispatch(PstSet(value: 1))
        second.dispatch(PstSet(value: 2))
        try await first.persistence?.flush()
        try await second.persistence?.flush()
      }
      #expect(counterStore(suite, name: "first").state.value == 1)
      #expect(counterStore(suite, name: "second").state.value == 2)
      #expect(onDisk("sluice.first", suite: suite) is Data)
      #expect(onDisk("sluice.second", suite: suite) is Data)
    }
  }

  @Test func garbageDataIsQuarantinedInTheSuite() async throws {
    try await withPstSuite { suite in
      let defaults = try #require(UserDefaults(suiteName: suite))
      let garbage = Data([0x7B, 0x22, 0x6B, 0x65, 0x79, 0x22, 0x3A])  // {"key":
      defaults.set(garbage, forKey: "sluice.counter")
      let store = counterStore(suite)
      #expect(store.state == PstCounter())
      let discarded = try #require(store.persistence?.restoreOutcome.pstDiscarded)
      #expect(discarded.error.pstIsCorrupt)
      pstExpectReported(store, key: "sluice.counter") { $0.pstIsCorrupt }
      let quarantineKey = try #require(discarded.quarantineKey)
      #expect(quarantineKey.hasPrefix("sluice.counter.quarantine."))
      #expect(defaults.data(forKey: quarantineKey) == garbage)
      store.dispatch(PstBump())
      try await store.persistence?.flush()
      #expect(defaults.data(forKey: quarantineKey) == garbage)
      #expect(onDisk(quarantineKey, suite: suite) as? Data == garbage)
    }
  }

  @Test func aValueThatIsNotDataIsQuarantinedWholeAsAPropertyList() async throws {
    // A Flask archive, or anything else another library kept under the same key.
    try await withPstSuite { suite in
      let defaults = try #require(UserDefaults(suiteName: suite))
      let foreign: [String: Any] = ["counter": 90, "nest": ["foo": "mutated"]]
      defaults.set(foreign, forKey: "sluice.counter")
      let store = counterStore(suite)
      #expect(store.state == PstCounter())
      let discarded = try #require(store.persistence?.restoreOutcome.pstDiscarded)
      #expect(discarded.error.pstIsCorrupt)
      let quarantineKey = try #require(discarded.quarantineKey)
      let kept = try #require(defaults.data(forKey: quarantineKey))
      let restored = try PropertyListSerialization.propertyList(from: kept, format: nil)
      #expect((restored as? [String: Any])?["counter"] as? Int == 90)
      #expect(
        ((restored as? [String: Any])?["nest"] as? [String: Any])?["foo"] as? String == "mutated")
    }
  }

  @Test func aNewerVersionIsLeftUntouchedInTheSuite() async throws {
    try await withPstSuite { suite in
      let storage = UserDefaultsStorage(suiteName: suite)
      try storage.write([pstRecord("sluice.counter", version: 4, json: #"{"value":1}"#)])
      let original = try #require(storage.defaults.data(forKey: "sluice.counter"))
      do {
        let store = counterStore(suite)
        #expect(store.persistence?.restoreOutcome.pstRefused != nil)
        store.dispatch(PstBump())
        try await store.persistence?.flush()
      }
      #expect(storage.defaults.data(forKey: "sluice.counter") == original)
    }
  }

  @Test func theStorageNamesItsSuite() {
    let storage = UserDefaultsStorage(suiteName: "sluice-pst-name")
    #expect(storage.suiteName == "sluice-pst-name")
    #expect(UserDefaultsStorage().suiteName == nil)
  }
}
