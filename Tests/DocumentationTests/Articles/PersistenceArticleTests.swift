import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/Persistence.md, compiled and run.

enum PersistenceArticle {
  struct Settings: Codable, Equatable, Sendable {
    var theme = "light"
    var fontSize = 14
  }

  struct ThemeChosen: Action { let theme: String }

  static let reducer = Reducer<Settings>()
    .on(ThemeChosen.self) { state, action in state.theme = action.theme }

  struct Editor: Codable, Equatable, Sendable {
    var text = ""
    var isSaving = false  // not persisted

    enum CodingKeys: String, CodingKey { case text }
  }

  struct EditorChanged: Action { let text: String }
  struct SavingStarted: Action {}

  /// The settings a record holds, decoded.
  static func settings(in record: PersistedRecord?) throws -> Settings? {
    try record.map { try JSONDecoder().decode(Settings.self, from: $0.data) }
  }

  @Suite("Article: Keeping State Across Launches")
  struct Tests {
    @Test func aJSONFileStoreIsRestoredByTheNextStore() async throws {
      let folder = try ArticleSupport.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let reducer = Reducer<Settings>()
        .on(ThemeChosen.self) { state, action in state.theme = action.theme }

      let store = Store(
        initialState: Settings(), reducer: reducer,
        persistence: .jsonFile("settings", in: folder))
      store.dispatch(ThemeChosen(theme: "dark"))
      try await store.persistence?.flush()  // everything dispatched so far is durable

      let file = folder.appendingPathComponent("sluice.settings.json")
      #expect(FileManager.default.fileExists(atPath: file.path))
      #expect(store.persistence?.writeCount == 1)
      #expect(store.persistence?.hasPendingChanges == false)

      let relaunched = Store(
        initialState: Settings(), reducer: reducer,
        persistence: .jsonFile("settings", in: folder))
      let theme = relaunched.state.theme  // "dark", restored in the initializer

      #expect(theme == "dark")
      if case .restored(version: 1)? = relaunched.persistence?.restoreOutcome {
      } else {
        Issue.record("expected restored(version: 1): \(String(describing: relaunched.persistence))")
      }
      relaunched.reset()
      #expect(relaunched.state == Settings(), "reset returns to the initial state")
    }

    @Test func writeThroughIsDurableWhenDispatchReturnsAndSavingCanBePaused() throws {
      let storage = InMemoryStorage()
      let store = Store(
        initialState: Settings(), reducer: reducer,
        persistence: .inMemory("settings", storage).saving(.writeThrough))
      store.dispatch(ThemeChosen(theme: "dark"))  // durable when dispatch returns
      let saved = storage.record("sluice.settings") != nil  // true

      #expect(saved)
      #expect(try settings(in: storage.record("sluice.settings"))?.theme == "dark")

      #expect(storage.writes == 1)

      store.persistence?.isEnabled = false  // changes are not saved
      store.dispatch(ThemeChosen(theme: "blue"))
      store.persistence?.isEnabled = true  // the latest state is saved again

      #expect(storage.writes == 2, "one write on re-enabling, none while disabled")
      #expect(try settings(in: storage.record("sluice.settings"))?.theme == "blue")
    }

    @Test func aVersionOneRecordIsMigrated() throws {
      let storage = InMemoryStorage()
      try storage.write([
        PersistedRecord(
          key: "sluice.settings", version: 1, data: Data(#"{"theme":"dark"}"#.utf8),
          updatedAt: Date())
      ])

      let store = Store(
        initialState: Settings(), reducer: reducer,
        persistence: .inMemory("settings", storage)
          .version(2, migrations: [1: { $0["fontSize"] = 14 }]))
      // store.persistence?.restoreOutcome is .migrated(from: 1, to: 2)

      #expect(store.state == Settings(theme: "dark", fontSize: 14))
      if case .migrated(from: 1, to: 2)? = store.persistence?.restoreOutcome {
      } else {
        Issue.record("expected migrated(from: 1, to: 2)")
      }
      #expect(store.errors.recent.isEmpty)
    }

    @Test func aTransientPropertyStaysOutOfTheRecord() async throws {
      let storage = InMemoryStorage()
      let editor = Store(
        initialState: Editor(),
        reducer: Reducer<Editor>()
          .on(EditorChanged.self) { state, action in state.text = action.text }
          .on(SavingStarted.self) { state, _ in state.isSaving = true },
        persistence: .inMemory("editor", storage))
      editor.dispatch(EditorChanged(text: "draft"))
      editor.dispatch(SavingStarted())
      try await editor.persistence?.flush()
      let record = try #require(storage.record("sluice.editor"))
      #expect(String(decoding: record.data, as: UTF8.self) == #"{"text":"draft"}"#)
      let relaunched = Store(
        initialState: Editor(), persistence: .inMemory("editor", storage))
      #expect(relaunched.state == Editor(text: "draft", isSaving: false))
    }

    @Test func damagedDataIsQuarantinedAndTheStoreStartsFresh() throws {
      let storage = InMemoryStorage()

      storage.setBytes(Data("garbage".utf8), for: "sluice.settings")  // a damaged record
      let recovered = Store(
        initialState: Settings(), reducer: reducer, persistence: .inMemory("settings", storage))
      let outcome = recovered.persistence?.restoreOutcome  // .discarded(.corrupt(…), …)
      let keys = storage.keys  // "sluice.settings" and "sluice.settings.quarantine.<milliseconds>"

      #expect(recovered.state == Settings())
      guard case .discarded(.corrupt, let quarantineKey?)? = outcome else {
        Issue.record("expected discarded(corrupt): \(String(describing: outcome))")
        return
      }
      #expect(quarantineKey.hasPrefix("sluice.settings.quarantine."))
      #expect(keys == ["sluice.settings", quarantineKey])
      #expect(storage.bytes(quarantineKey) == Data("garbage".utf8))
      #expect(recovered.errors.last?.source == .persistence("sluice.settings"))
      if case .corrupt? = recovered.persistence?.lastError {
      } else {
        Issue.record("lastError must be the corrupt error")
      }
    }
  }
}
