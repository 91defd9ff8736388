import Foundation
import Sluice
import SluiceSQLite
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/SharingALane.md, compiled and run.

struct AddNote: Action, Codable { let text: String }

let noteReducer = Reducer<[String]>().on(AddNote.self) { notes, action in
  notes.append(action.text)
}

@Suite struct SharingALaneArticleTests {
  @Test func theSnippetsShareALaneThroughAnSQLiteFile() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sluice-docs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("notes.sqlite").path

    let actions = SharedActions().register(AddNote.self, as: "notes.add")
    let lane = try SharedLane(engine: try SQLiteLogEngine(path: path), actions: actions)
    let notes = Store(initialState: [String](), dispatcher: lane.dispatcher, reducer: noteReducer)
    try lane.share(notes, as: "notes")
    try await lane.start()
    try await lane.send(AddNote(text: "Buy milk"))
    #expect(notes.state == ["Buy milk"])

    if let reason = lane.stopReason {
      print("this node stopped: \(reason)")
    }
    #expect(lane.stopReason == nil)

    // Another process would see the same list.
    let other = try SharedLane(engine: try SQLiteLogEngine(path: path), actions: actions)
    let copy = Store(initialState: [String](), dispatcher: other.dispatcher, reducer: noteReducer)
    try other.share(copy, as: "notes")
    try await other.start()
    #expect(copy.state == ["Buy milk"])
    await lane.stop()
    await other.stop()

    // Many lanes on one engine.
    let engine = try SQLiteLogEngine(path: path)
    let room = try SharedLane(engine: engine, lane: "room-42", actions: actions)
    let lobby = try SharedLane(engine: engine, lane: "lobby", actions: actions)
    try await room.start()
    try await lobby.start()
    try await room.send(AddNote(text: "in the room"))
    #expect(try await engine.head(of: "room-42") == 1)
    #expect(try await engine.head(of: "lobby") == 0)
    #expect(try await engine.head(of: "default") == 1)
    await room.stop()
    await lobby.stop()
  }
}
