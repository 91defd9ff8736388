import Foundation
import Sluice
import Testing

@testable import SluiceSQLite

private struct SqCounter: Codable, Equatable, Sendable {
  var value = 0
}

private struct SqBump: Action {}

private let sqReducer = Reducer<SqCounter>().on(SqBump.self) { state, _ in state.value += 1 }

@Suite struct SQLiteSmokeTests {
  @Test func roundTripThroughAFile() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("db.sqlite").path
    do {
      let database = try SQLiteStorage(path: path)
      let store = Store(
        initialState: SqCounter(), reducer: sqReducer, persistence: .sqlite("c", in: database))
      store.dispatch(SqBump())
      store.dispatch(SqBump())
      try await store.persistence?.flush()
    }
    let database = try SQLiteStorage(path: path)
    let again = Store(
      initialState: SqCounter(), reducer: sqReducer, persistence: .sqlite("c", in: database))
    #expect(again.state.value == 2)
    #expect(try database.keys() == ["sluice.c"])
  }
}
