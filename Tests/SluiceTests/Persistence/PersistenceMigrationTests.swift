import Foundation
import SluiceTesting
import Testing

@testable import Sluice

/// v1 `{"name"}` → v2 `{"title"}` → v3 `{"title", "tags"}`.
private let migrations: [Int: PersistenceMigration] = [
  1: { state in
    state["title"] = state["name"]
    state["name"] = nil
  },
  2: { state in
    // Runs after the first step for a v1 record: it sees the title made by it.
    let title = state["title"].stringValue ?? ""
    state["tags"] = title.isEmpty ? [] : [.string("from-\(title)")]
  },
]

private func noteKey(_ storage: InMemoryStorage) -> PersistenceKey<PstNote> {
  PersistenceKey<PstNote>.inMemory("note", storage).version(3, migrations: migrations)
    .clock(ManualClock())
}

@Suite struct PersistenceMigrationTests {
  @Test func aVersionOneRecordRunsBothSteps() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.note", version: 1, json: #"{"name":"groceries"}"#)])
    let store = Store(
      initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
    #expect(store.state == PstNote(title: "groceries", tags: ["from-groceries"]))
    let migration = try #require(store.persistence?.restoreOutcome.pstMigration)
    #expect(migration.from == 1)
    #expect(migration.to == 3)
    #expect(store.persistence?.version == 3)
    #expect(store.errors.recent.isEmpty)
    #expect(store.persistence?.lastError == nil)
  }

  @Test func aVersionTwoRecordRunsTheSecondStepOnly() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.note", version: 2, json: #"{"title":"todo"}"#)])
    let store = Store(
      initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
    #expect(store.state == PstNote(title: "todo", tags: ["from-todo"]))
    let migration = try #require(store.persistence?.restoreOutcome.pstMigration)
    #expect(migration.from == 2)
    #expect(migration.to == 3)
  }

  @Test func aCurrentRecordIsRestoredWithoutMigrating() async throws {
    let storage = InMemoryStorage()
    try storage.write([
      pstRecord("sluice.note", version: 3, json: #"{"title":"done","tags":["a","b"]}"#)
    ])
    let store = Store(
      initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
    #expect(store.state == PstNote(title: "done", tags: ["a", "b"]))
    #expect(store.persistence?.restoreOutcome.pstRestoredVersion == 3)
  }

  @Test func theMigratedStateIsSavedAsTheCurrentVersion() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.note", version: 1, json: #"{"name":"old"}"#)])
    do {
      let store = Store(
        initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
      // Restoring alone rewrites nothing.
      #expect(storage.record("sluice.note")?.version == 1)
      store.dispatch(PstRetitle(title: "new"))
      try await store.persistence?.flush()
    }
    let record = try #require(storage.record("sluice.note"))
    #expect(record.version == 3)
    let object = try #require(pstObject(record.data))
    #expect(Set(object.keys) == ["title", "tags"])
    #expect(pstDecode(PstNote.self, record) == PstNote(title: "new", tags: ["from-old"]))
    // The next launch restores it as it is.
    let again = Store(
      initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
    #expect(again.persistence?.restoreOutcome.pstRestoredVersion == 3)
    #expect(again.state == PstNote(title: "new", tags: ["from-old"]))
  }

  @Test func saveNowAfterAMigrationWritesTheCurrentVersion() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.note", version: 2, json: #"{"title":"x"}"#)])
    let store = Store(
      initialState: PstNote(), reducer: pstNoteReducer, persistence: noteKey(storage))
    try await store.persistence?.saveNow()
    #expect(storage.record("sluice.note")?.version == 3)
    #expect(pstDecode(PstNote.self, storage.record("sluice.note")) == store.state)
  }

  @Test func migrationsRunOnARecordInAJSONFile() async throws {
    try await withPstFolder { folder in
      try JSONFileStorage(directory: folder).write([
        pstRecord("sluice.note", version: 1, json: #"{"name":"file"}"#)
      ])
      do {
        let store = Store(
          initialState: PstNote(), reducer: pstNoteReducer,
          persistence: .jsonFile("note", in: folder).version(3, migrations: migrations))
        #expect(store.state == PstNote(title: "file", tags: ["from-file"]))
        #expect(store.persistence?.restoreOutcome.pstMigration?.from == 1)
        try await store.persistence?.saveNow()
      }
      let record = try #require(try JSONFileStorage(directory: folder).read("sluice.note"))
      #expect(record.version == 3)
    }
  }

  @Test func theVersionIsAtLeastOne() {
    let key = PersistenceKey<PstNote>.inMemory("note", InMemoryStorage())
    #expect(key.version == 1)
    #expect(key.version(0).version == 1)
    #expect(key.version(-3).version == 1)
    #expect(key.version(7).version == 7)
  }

  @Test func stepsCanBeRegisteredInAnyOrder() async throws {
    let storage = InMemoryStorage()
    try storage.write([pstRecord("sluice.note", version: 1, json: #"{"name":"z"}"#)])
    let reversed: [Int: PersistenceMigration] = [
      2: { state in state["tags"] = [.string(state["title"].stringValue ?? "?")] },
      1: { state in
        state["title"] = state["name"]
        state["name"] = nil
      },
    ]
    let store = Store(
      initialState: PstNote(), reducer: pstNoteReducer,
      persistence: .inMemory("note", storage).version(3, migrations: reversed))
    #expect(store.state == PstNote(title: "z", tags: ["z"]))
  }
}
