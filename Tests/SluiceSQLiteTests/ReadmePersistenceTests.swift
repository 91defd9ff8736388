import Foundation
import Sluice
import Testing

@testable import SluiceSQLite

// The code of README.md's "Persistence" section (reformatted to 100 columns) in `run(in:)`,
// with its `folder` (the README makes `./.sluice`) a temporary folder.

private struct Settings: Codable, Equatable, Sendable {
  var theme = "light"
  var fontSize = 14
}

private struct ThemeChosen: Action { let theme: String }

@Suite struct ReadmePersistenceTests {
  private func run(in folder: URL) async throws -> Store<Settings> {
    let database = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
    let settings = Store(
      initialState: Settings(),
      reducer: Reducer<Settings>().on(ThemeChosen.self) { state, action in
        state.theme = action.theme
      },
      persistence: .sqlite("settings", in: database)
        .version(2, migrations: [1: { $0["fontSize"] = 14 }]))
    settings.dispatch(ThemeChosen(theme: "dark"))
    try await settings.persistence?.flush()  // everything dispatched so far is durable
    return settings
  }

  @Test func theExamplePersistsAndRestores() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try await run(in: folder)
    #expect(first.state.theme == "dark")
    let database = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
    let record = try #require(try database.read("sluice.settings"))
    #expect(record.version == 2)
    let restored = Store(
      initialState: Settings(), persistence: .sqlite("settings", in: database).version(2))
    #expect(restored.state == Settings(theme: "dark", fontSize: 14))
  }
}
