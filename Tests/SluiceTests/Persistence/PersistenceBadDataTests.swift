import Foundation
import SluiceTesting
import Testing

@testable import Sluice

private let key = "sluice.counter"

private let initial = PstCounter(value: -1, label: "initial")

/// A store whose coalescing clock never moves: only `flush`, `saveNow` and its end write.
private func counterStore(_ persistence: PersistenceKey<PstCounter>) -> Store<PstCounter> {
  Store(initialState: initial, reducer: pstReducer, persistence: persistence.clock(ManualClock()))
}

/// The checks every bad-data case shares: the store starts from its initial state, the error
/// is reported (channel and `lastError`), and the bad bytes are kept under a quarantine key.
/// Returns the quarantine key.
@discardableResult
private func expectDiscarded(
  _ store: Store<PstCounter>, sourceLocation: SourceLocation = #_sourceLocation,
  _ check: (PersistenceError) -> Bool
) -> String? {
  #expect(store.state == initial, sourceLocation: sourceLocation)
  let outcome = store.persistence?.restoreOutcome
  let discarded = outcome?.pstDiscarded
  #expect(
    discarded.map { check($0.error) } == true, "outcome: \(String(describing: outcome))",
    sourceLocation: sourceLocation)
  pstExpectReported(store, key: key, sourceLocation: sourceLocation, check)
  #expect(store.errors.totalCount == 1, sourceLocation: sourceLocation)
  #expect(store.dispatcher.errors.last?.source == .persistence(key), sourceLocation: sourceLocation)
  let quarantineKey = discarded?.quarantineKey
  #expect(quarantineKey?.hasPrefix("\(key).quarantine.") == true, sourceLocation: sourceLocation)
  return quarantineKey
}

@Suite struct PersistenceBadDataTests {
  // MARK: - Corrupt bytes

  @Test func aTruncatedFileIsQuarantinedAndKept() async throws {
    try await withPstFolder { folder in
      do {
        let store = counterStore(.jsonFile("counter", in: folder))
        store.dispatch(PstSet(value: 12_345))
        try await store.persistence?.flush()
      }
      let file = folder.appendingPathComponent("\(key).json")
      let whole = try Data(contentsOf: file)
      let truncated = whole.prefix(whole.count / 2)
      try truncated.write(to: file)

      let store = counterStore(.jsonFile("counter", in: folder))
      let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
      #expect(store.persistence?.lastError?.pstCorruptBytes == truncated)
      let kept = folder.appendingPathComponent("\(quarantineKey).json")
      #expect(try Data(contentsOf: kept) == truncated)

      // Saving the new state never touches the quarantined bytes.
      store.dispatch(PstSet(value: 1))
      try await store.persistence?.flush()
      #expect(try Data(contentsOf: kept) == truncated)
      let again = counterStore(.jsonFile("counter", in: folder))
      #expect(again.state.value == 1)
      #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 1)
    }
  }

  @Test func garbageBytesInMemoryAreQuarantinedAndKept() async throws {
    let storage = InMemoryStorage()
    let garbage = Data((0..<256).map { UInt8(($0 * 151 + 7) % 256) })
    storage.setBytes(garbage, for: key)
    let store = counterStore(.inMemory("counter", storage))
    let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
    #expect(storage.bytes(quarantineKey) == garbage)
    store.dispatch(PstBump())
    try await store.persistence?.flush()
    #expect(storage.bytes(quarantineKey) == garbage)
    #expect(
      pstDecode(PstCounter.self, storage.record(key)) == PstCounter(value: 0, label: "initial"))
  }

  @Test func garbageBytesInAFileAreQuarantinedAndKept() async throws {
    try await withPstFolder { folder in
      let garbage = Data("\u{FEFF}<?xml version=\"1.0\"?><not-json/>\0\u{1}".utf8)
      try garbage.write(to: folder.appendingPathComponent("\(key).json"))
      let store = counterStore(.jsonFile("counter", in: folder))
      let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
      #expect(
        try Data(contentsOf: folder.appendingPathComponent("\(quarantineKey).json")) == garbage)
    }
  }

  @Test func aFileWhoseStateNoLongerDecodesIsQuarantinedWholeAsStored() async throws {
    try await withPstFolder { folder in
      // Written by hand, as another version of the app might: spacing and field order differ
      // from what Sluice writes, and the schema version is old.
      let stored = Data(
        """
        {"updatedAt": 1700000000.25, "version": 1, "key": "\(key)",
         "state": {"count": 3}}
        """.utf8)
      try stored.write(to: folder.appendingPathComponent("\(key).json"))
      let store = counterStore(.jsonFile("counter", in: folder).version(2))
      let quarantineKey = try #require(
        expectDiscarded(store) {
          if case .missingMigration(_, 1, 2) = $0 { true } else { false }
        })
      #expect(
        try Data(contentsOf: folder.appendingPathComponent("\(quarantineKey).json")) == stored)
    }
  }

  @Test func anEmptyFileIsQuarantined() async throws {
    try await withPstFolder { folder in
      try Data().write(to: folder.appendingPathComponent("\(key).json"))
      let store = counterStore(.jsonFile("counter", in: folder))
      let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
      #expect(
        try Data(contentsOf: folder.appendingPathComponent("\(quarantineKey).json")) == Data())
    }
  }

  @Test func anEnvelopeForAnotherKeyIsQuarantined() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.other", version: 1, json: #"{"value":5,"label":"x"}"#)])
    let foreign = try #require(storage.bytes("sluice.other"))
    storage.setBytes(foreign, for: key)
    let store = counterStore(.inMemory("counter", storage))
    let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
    let description = store.persistence?.lastError?.description ?? ""
    #expect(description.contains("sluice.other"))
    #expect(storage.bytes(quarantineKey) == foreign)
  }

  @Test func aFileCopiedFromAnotherKeyIsQuarantined() async throws {
    try await withPstFolder { folder in
      try JSONFileStorage(directory: folder).write([
        pstRecord("sluice.other", version: 1, json: #"{"value":5,"label":"x"}"#)
      ])
      try FileManager.default.copyItem(
        at: folder.appendingPathComponent("sluice.other.json"),
        to: folder.appendingPathComponent("\(key).json"))
      let store = counterStore(.jsonFile("counter", in: folder))
      expectDiscarded(store) { $0.pstIsCorrupt }
    }
  }

  @Test func anEnvelopeWhoseStateIsNotJSONIsQuarantined() async throws {
    // A byte backend given a record whose data is not JSON holds a broken envelope.
    let storage = InMemoryStorage()
    try storage.write([
      PersistedRecord(key: key, version: 1, data: Data("not json {".utf8), updatedAt: Date())
    ])
    let bytes = try #require(storage.bytes(key))
    let store = counterStore(.inMemory("counter", storage))
    let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
    #expect(storage.bytes(quarantineKey) == bytes)
  }

  @Test func aRecordWhoseDataIsNotJSONIsQuarantined() async throws {
    // A backend that stores records as columns (SQLite) can return data that is not JSON.
    let data = Data([0xFF, 0xFE, 0x00, 0x42])
    let storage = PstStubStorage(
      record: PersistedRecord(key: key, version: 1, data: data, updatedAt: Date()))
    let store = counterStore(PersistenceKey("counter", storage: storage))
    let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsCorrupt })
    #expect(storage.quarantinedBytes[quarantineKey] == data)
    #expect(store.persistence?.lastError?.pstCorruptBytes == data)
  }

  // MARK: - Schemas and versions

  @Test func aChangedSchemaWithoutMigrationIsQuarantined() async throws {
    // Flask crashed on launch here. The record has `count` where the state now has `value`.
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 1, json: #"{"count":3,"label":"old"}"#)])
    let stored = try #require(storage.bytes(key))
    let store = counterStore(.inMemory("counter", storage))
    let quarantineKey = try #require(expectDiscarded(store) { $0.pstIsUndecodable })
    if case .undecodable(let errorKey, let version, _)? = store.persistence?.lastError {
      #expect(errorKey == key)
      #expect(version == 1)
    }
    // The whole record, as stored: its envelope (key, schema version, time) and its state.
    #expect(storage.bytes(quarantineKey) == stored)
    let kept = try #require(pstObject(storage.bytes(quarantineKey)))
    #expect((kept["version"] as? NSNumber)?.intValue == 1)
    #expect(kept["updatedAt"] is NSNumber)
    let state = try #require(kept["state"] as? [String: Any])
    #expect((state["count"] as? NSNumber)?.intValue == 3)
    #expect(state["label"] as? String == "old")
  }

  @Test func aWrongTypeInTheDataIsQuarantined() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 1, json: #"{"value":"seven","label":"x"}"#)])
    let store = counterStore(.inMemory("counter", storage))
    expectDiscarded(store) { $0.pstIsUndecodable }
  }

  @Test func aMissingMigrationStepIsQuarantined() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 1, json: #"{"amount":3}"#)])
    let stored = try #require(storage.bytes(key))
    let onlyFromTwo: [Int: PersistenceMigration] = [2: { state in state["label"] = "migrated" }]
    let store = counterStore(.inMemory("counter", storage).version(3, migrations: onlyFromTwo))
    let quarantineKey = try #require(
      expectDiscarded(store) {
        if case .missingMigration(_, 1, 2) = $0 { true } else { false }
      })
    // As stored, old schema version included, not migrated.
    #expect(storage.bytes(quarantineKey) == stored)
    let kept = try #require(storage.bytes(quarantineKey).flatMap(pstObject))
    #expect((kept["version"] as? NSNumber)?.intValue == 1)
    #expect((kept["state"] as? [String: Any])?["amount"] as? Int == 3)
  }

  @Test func aMigrationThatThrowsIsQuarantined() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 1, json: #"{"amount":3}"#)])
    let throwing: [Int: PersistenceMigration] = [
      1: { _ in throw PstDiskError(code: 77) },
      2: { _ in Issue.record("the second step ran after the first threw") },
    ]
    let store = counterStore(.inMemory("counter", storage).version(3, migrations: throwing))
    expectDiscarded(store) {
      if case .migrationFailed(_, 1, let underlying) = $0 {
        underlying as? PstDiskError == PstDiskError(code: 77)
      } else {
        false
      }
    }
  }

  @Test func aNewerVersionIsRefusedAndLeftUntouched() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 5, json: #"{"value":99,"future":true}"#)])
    let original = try #require(storage.bytes(key))
    do {
      let store = Store(
        initialState: initial, reducer: pstReducer,
        persistence: .inMemory("counter", storage).version(3).clock(ManualClock()))
      #expect(store.state == initial)
      let refused = try #require(store.persistence?.restoreOutcome.pstRefused)
      if case .newerVersion(let errorKey, let stored, let supported) = refused {
        #expect(errorKey == key)
        #expect(stored == 5)
        #expect(supported == 3)
      } else {
        Issue.record("unexpected error \(refused)")
      }
      pstExpectReported(store, key: key) {
        if case .newerVersion = $0 { true } else { false }
      }
      let persistence = try #require(store.persistence)
      #expect(!persistence.isEnabled)
      persistence.isEnabled = true
      #expect(!persistence.isEnabled)
      for _ in 0..<5 { store.dispatch(PstBump()) }
      try await persistence.flush()
      try? await persistence.saveNow()
      #expect(storage.bytes(key) == original)
      #expect(persistence.writeCount == 0)
    }
    // Not even when the store goes away.
    #expect(storage.bytes(key) == original)
    #expect(storage.keys == [key])
    #expect(storage.writes == 1)
  }

  @Test func aNewerVersionInAFileIsLeftByteForByte() async throws {
    try await withPstFolder { folder in
      try JSONFileStorage(directory: folder).write([
        pstRecord(key, version: 9, json: #"{"value":1,"label":"from the future"}"#)
      ])
      let file = folder.appendingPathComponent("\(key).json")
      let original = try Data(contentsOf: file)
      do {
        let store = counterStore(.jsonFile("counter", in: folder).version(2))
        #expect(store.state == initial)
        #expect(store.persistence?.restoreOutcome.pstRefused != nil)
        #expect(store.persistence?.isEnabled == false)
        store.dispatch(PstSet(value: 2))
        try await store.persistence?.flush()
      }
      #expect(try Data(contentsOf: file) == original)
      #expect(pstFiles(in: folder) == ["\(key).json"])
    }
  }

  // MARK: - Unreadable and unwritable storage

  @Test func anUnwritableDirectoryIsReportedOnSave() async throws {
    try await withPstFolder { folder in
      // Runs as root: permissions do not stop it, a path through a regular file does.
      let blocker = folder.appendingPathComponent("file.txt")
      try Data("a file".utf8).write(to: blocker)
      let directory = blocker.appendingPathComponent("sub")
      let store = counterStore(.jsonFile("counter", in: directory))
      #expect(store.state == initial)
      #expect(store.persistence?.restoreOutcome.pstIsEmpty == true)
      store.dispatch(PstSet(value: 4))
      await #expect(throws: PersistenceError.self) { try await store.persistence?.flush() }
      pstExpectReported(store, key: key) { $0.pstStorageOperation == "write" }
      #expect(store.persistence?.hasPendingChanges == true)
      #expect(store.persistence?.writeCount == 0)
      #expect(store.state.value == 4)
      #expect(try Data(contentsOf: blocker) == Data("a file".utf8))
    }
  }

  @Test func aDirectoryInPlaceOfTheFileIsUnreadable() async throws {
    try await withPstFolder { folder in
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("\(key).json"), withIntermediateDirectories: true)
      let store = counterStore(.jsonFile("counter", in: folder))
      #expect(store.state == initial)
      let error = try #require(store.persistence?.restoreOutcome.pstUnreadable)
      #expect(error.pstStorageOperation == "read")
      pstExpectReported(store, key: key) { $0.pstStorageOperation == "read" }
    }
  }

  @Test func aFailingDiskKeepsTheStatePendingUntilItWorksAgain() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = Store(
      initialState: initial, reducer: pstReducer,
      persistence: .inMemory("counter", storage).clock(clock))
    store.dispatch(PstSet(value: 1))
    try await store.persistence?.flush()

    storage.failAll(with: PstDiskError())
    store.dispatch(PstSet(value: 2))
    await #expect(throws: PersistenceError.self) { try await store.persistence?.flush() }
    pstExpectReported(store, key: key) { error in
      if case .storage(_, "write", let underlying) = error {
        underlying as? PstDiskError == PstDiskError()
      } else {
        false
      }
    }
    #expect(store.persistence?.hasPendingChanges == true)
    #expect(store.persistence?.writeCount == 1)
    store.dispatch(PstSet(value: 3))  // dispatched while the disk fails
    await #expect(throws: PersistenceError.self) { try await store.persistence?.flush() }
    #expect(store.errors.totalCount == 2)

    storage.failAll(with: nil)
    #expect(pstDecode(PstCounter.self, storage.record(key))?.value == 1)
    try await store.persistence?.flush()
    #expect(pstDecode(PstCounter.self, storage.record(key))?.value == 3)
    #expect(store.persistence?.hasPendingChanges == false)
    #expect(store.persistence?.writeCount == 2)
  }

  @Test func aFailedBackgroundWriteIsRetried() async throws {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let store = Store(
      initialState: initial, reducer: pstReducer,
      persistence: .inMemory("counter", storage).clock(clock))
    storage.failAll(with: PstDiskError())
    store.dispatch(PstSet(value: 8))
    await clock.advance(by: .seconds(2))
    #expect(await pstWait { store.errors.totalCount == 1 })
    #expect(store.persistence?.writeCount == 0)
    storage.failAll(with: nil)
    // No new change: the writer schedules a retry by itself, one debounce later.
    #expect(await pstWait { clock.sleeperCount > 0 }, "no retry was scheduled")
    #expect(store.persistence?.hasPendingChanges == true)
    await clock.advance(by: .seconds(2))
    #expect(await pstWait { store.persistence?.writeCount == 1 })
    #expect(pstDecode(PstCounter.self, storage.record(key))?.value == 8)
  }

  @Test func aFailingDiskAtLaunchIsReportedAsUnreadable() async throws {
    let storage = InMemoryStorage()
    storage.failAll(with: PstDiskError())
    let store = counterStore(.inMemory("counter", storage))
    #expect(store.state == initial)
    #expect(store.persistence?.restoreOutcome.pstUnreadable?.pstStorageOperation == "read")
    pstExpectReported(store, key: key) { $0.pstStorageOperation == "read" }
  }

  @Test func aRecordThatCouldNotBeReadIsNotOverwritten() async throws {
    // A disk that fails once at launch: the good record must survive the next save, or the
    // user's data is replaced by the initial state.
    let storage = InMemoryStorage()
    try storage.write([pstRecord(key, version: 1, json: #"{"value":42,"label":"precious"}"#)])
    storage.failAll(with: PstDiskError())
    let store = counterStore(.inMemory("counter", storage))
    storage.failAll(with: nil)
    #expect(store.state == initial)
    #expect(store.persistence?.restoreOutcome.pstUnreadable != nil)
    store.dispatch(PstBump())
    try await store.persistence?.flush()
    #expect(
      pstDecode(PstCounter.self, storage.record(key)) == PstCounter(value: 0, label: "initial"))
    let survivors = storage.keys.filter {
      $0 != key
        && pstEnvelopeState(PstCounter.self, storage.bytes($0))
          == PstCounter(value: 42, label: "precious")
    }
    #expect(survivors.count == 1, "the record that could not be read was overwritten")
    #expect(survivors.first?.hasPrefix("\(key).quarantine.") == true)
  }

  // MARK: - Quarantine

  @Test func successiveQuarantinesNeverOverwriteEachOther() async throws {
    let storage = InMemoryStorage()
    var kept: [String: Data] = [:]
    for index in 0..<4 {
      let garbage = Data("garbage #\(index)".utf8)
      storage.setBytes(garbage, for: key)
      let store = counterStore(.inMemory("counter", storage))
      let quarantineKey = try #require(
        store.persistence?.restoreOutcome.pstDiscarded?.quarantineKey)
      #expect(kept[quarantineKey] == nil, "quarantine key \(quarantineKey) reused")
      kept[quarantineKey] = garbage
    }
    for (quarantineKey, garbage) in kept { #expect(storage.bytes(quarantineKey) == garbage) }
  }

  @Test func successiveQuarantinesInAFolderNeverOverwriteEachOther() async throws {
    try await withPstFolder { folder in
      var kept: [String: Data] = [:]
      for index in 0..<4 {
        let garbage = Data("garbage #\(index)".utf8)
        try garbage.write(to: folder.appendingPathComponent("\(key).json"))
        let store = counterStore(.jsonFile("counter", in: folder))
        let quarantineKey = try #require(
          store.persistence?.restoreOutcome.pstDiscarded?.quarantineKey)
        kept[quarantineKey] = garbage
      }
      #expect(kept.count == 4)
      for (quarantineKey, garbage) in kept {
        #expect(
          try Data(contentsOf: folder.appendingPathComponent("\(quarantineKey).json")) == garbage)
      }
    }
  }

  @Test func badBytesThatCouldNotBeQuarantinedAreNotOverwritten() async throws {
    let data = Data("{ broken".utf8)
    let record = PersistedRecord(key: key, version: 1, data: data, updatedAt: Date())
    let storage = PstStubStorage(record: record, quarantineFails: true)
    let store = counterStore(PersistenceKey("counter", storage: storage))
    let discarded = try #require(store.persistence?.restoreOutcome.pstDiscarded)
    #expect(discarded.quarantineKey == nil)
    #expect(store.state == initial)
    store.dispatch(PstBump())
    try? await store.persistence?.flush()
    #expect(storage.current?.data == data, "the only copy of the bad bytes was overwritten")
  }

  @Test func badBytesInAFileWhoseQuarantineNameIsTooLongAreNotOverwritten() async throws {
    // The quarantine file name adds ".quarantine.<milliseconds>" (25 characters) to the key's:
    // with a long key the file itself fits in NAME_MAX (255) but its quarantine does not.
    try await withPstFolder { folder in
      let name = String(repeating: "n", count: 200)
      let file = folder.appendingPathComponent("sluice.\(name).json")
      let garbage = Data("garbage".utf8)
      try garbage.write(to: file)
      let store = Store(
        initialState: initial, reducer: pstReducer,
        persistence: .jsonFile(name, in: folder).clock(ManualClock()))
      #expect(store.persistence?.restoreOutcome.pstDiscarded != nil)
      store.dispatch(PstBump())
      try? await store.persistence?.flush()
      let survivors = pstFiles(in: folder).filter {
        (try? Data(contentsOf: folder.appendingPathComponent($0))) == garbage
      }
      #expect(!survivors.isEmpty, "the garbage was overwritten and not kept anywhere")
    }
  }
}
