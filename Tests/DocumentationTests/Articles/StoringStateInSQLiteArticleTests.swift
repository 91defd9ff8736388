import Foundation
import Sluice
import SluiceSQLite
import Testing

// The Swift snippets of Sources/SluiceSQLite/SluiceSQLite.docc/StoringStateInSQLite.md and of
// the SluiceSQLite landing page (SluiceSQLite.md), compiled and run.

enum SQLiteArticle {
  struct Settings: Codable, Equatable, Sendable {
    var theme = "light"
    var fontSize = 14
  }

  struct Draft: Codable, Equatable, Sendable {
    var text = ""
  }

  struct ThemeChosen: Action { let theme: String }
  struct DraftEdited: Action { let text: String }

  static let settingsReducer = Reducer<Settings>()
    .on(ThemeChosen.self) { state, action in state.theme = action.theme }
  static let draftReducer = Reducer<Draft>()
    .on(DraftEdited.self) { state, action in state.text = action.text }

  @Suite("Article: Storing State in SQLite")
  struct Tests {
    @Test func storesShareOneFileAndAreRestoredFromIt() async throws {
      let folder = try ArticleSupport.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let settingsReducer = Reducer<Settings>()
        .on(ThemeChosen.self) { state, action in state.theme = action.theme }
      let draftReducer = Reducer<Draft>()
        .on(DraftEdited.self) { state, action in state.text = action.text }

      let database = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
      let settings = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: database))
      let draft = Store(
        initialState: Draft(), reducer: draftReducer,
        persistence: .sqlite("draft", in: database))
      settings.dispatch(ThemeChosen(theme: "dark"))
      try await settings.persistence?.flush()  // the new theme is on disk
      let keys = try database.keys()  // ["sluice.settings"]: the draft has not been saved yet

      #expect(keys == ["sluice.settings"])
      draft.dispatch(DraftEdited(text: "hello"))
      try await draft.persistence?.flush()
      #expect(try database.keys() == ["sluice.draft", "sluice.settings"])

      let relaunched = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: database))
      let theme = relaunched.state.theme  // "dark"

      #expect(theme == "dark")

      // Another connection to the file sees what was flushed.
      let other = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
      let record = try #require(try other.read("sluice.draft"))
      #expect(try JSONDecoder().decode(Draft.self, from: record.data) == Draft(text: "hello"))
    }

    // The example of the SluiceSQLite landing page (SluiceSQLite.md).
    @Test func aStoreIsPersistedUnderAKeyOfTheDatabase() async throws {
      let folder = try ArticleSupport.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let databasePath = folder.appendingPathComponent("settings.sqlite").path

      let database = try SQLiteStorage(path: databasePath)
      let settings = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: database))

      settings.dispatch(ThemeChosen(theme: "dark"))
      try await settings.persistence?.flush()
      #expect(FileManager.default.fileExists(atPath: databasePath))
      #expect(try database.keys() == ["sluice.settings"])
    }

    @Test func anImpatientStorageWaitsAtMostItsBusyTimeout() throws {
      let folder = try ArticleSupport.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let databasePath = folder.appendingPathComponent("app.sqlite").path
      let record = PersistedRecord(
        key: "sluice.settings", version: 1, data: Data(#"{"theme":"dark","fontSize":14}"#.utf8),
        updatedAt: Date())

      let impatient = try SQLiteStorage(path: databasePath, busyTimeout: .milliseconds(500))
      do {
        try impatient.write([record])
      } catch let error as SQLiteStorageError where error.kind == .busy {
        // another process held the file for more than half a second; nothing was written
      }

      // No other process holds the file here (SQLiteBusyTests has one that does).
      #expect(try impatient.read("sluice.settings")?.data == record.data)
    }

    @Test func aReadOnlyStorageRestoresAStoreAndWritesNothing() async throws {
      let folder = try ArticleSupport.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let databasePath = folder.appendingPathComponent("app.sqlite").path
      let app = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: try SQLiteStorage(path: databasePath)))
      app.dispatch(ThemeChosen(theme: "dark"))
      try await app.persistence?.flush()

      let viewer = try SQLiteStorage(path: databasePath, mode: .readOnly)
      let settings = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: viewer))  // restored from the file
      let keys = try viewer.keys()

      #expect(settings.state.theme == "dark")
      #expect(keys == ["sluice.settings"])
      settings.dispatch(ThemeChosen(theme: "light"))
      await #expect(throws: PersistenceError.self) { try await settings.persistence?.flush() }
      #expect(settings.errors.last?.source == .persistence("sluice.settings"))
      #expect(throws: SQLiteStorageError.self) { try viewer.write([]) }
    }

    @Test func aNamespaceKeepsStatesApart() async throws {
      let database = try SQLiteStorage()

      let guestSettings = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: database).namespace("guest"))
      // saved under "guest.settings"

      try await guestSettings.persistence?.saveNow()
      #expect(guestSettings.persistence?.key == "guest.settings")
      #expect(try database.keys() == ["guest.settings"])
    }

    @Test func writeThroughIsInTheDatabaseWhenDispatchReturns() throws {
      let database = try SQLiteStorage()

      let journal = Store(
        initialState: Draft(), reducer: draftReducer,
        persistence: .sqlite("journal", in: database).saving(.writeThrough))
      journal.dispatch(DraftEdited(text: "Dear Ada"))  // in the database when dispatch returns
      let record = try database.read("sluice.journal")  // version 1, the draft's JSON

      #expect(record?.version == 1)
      #expect(record.map { String(decoding: $0.data, as: UTF8.self) } == #"{"text":"Dear Ada"}"#)
    }

    @Test func aDamagedRecordIsQuarantinedWithItsReason() throws {
      let database = try SQLiteStorage()

      try database.write([
        PersistedRecord(
          key: "sluice.settings", version: 1, data: Data("not JSON".utf8), updatedAt: Date())
      ])  // a damaged record, as another tool might leave it
      let recovered = Store(
        initialState: Settings(), reducer: settingsReducer,
        persistence: .sqlite("settings", in: database))
      let quarantined = try database.quarantineKeys(of: "sluice.settings")
      let kept = try database.quarantined(quarantined[0])  // the bytes, and why they were set aside

      #expect(recovered.state == Settings())
      #expect(quarantined.count == 1)
      #expect(kept?.data == Data("not JSON".utf8))
      #expect(kept?.reason.contains("not JSON") == true)
      guard case .discarded(.corrupt, let key?)? = recovered.persistence?.restoreOutcome else {
        Issue.record("expected discarded(corrupt)")
        return
      }
      #expect(key == quarantined[0])
      #expect(recovered.errors.last?.source == .persistence("sluice.settings"))
    }
  }
}
