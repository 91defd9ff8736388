import Foundation
import GRDB
import Sluice
import SluiceSQLite
import SluiceTestSupport
import Testing

/// `sluice-demo todo` commands run at once on one store file share its lane: none loses
/// another's change (issue 15: four `todo add` at once used to keep only some of the todos, and
/// print the same id twice).
@Suite("sluice-demo todo, several processes at once")
struct TodoConcurrencyTests {
  @Test func commandsRunAtOnceLoseNothingAndGetDistinctIds() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    defer { folder.remove() }
    let store = ["--store", folder.path("todos.sqlite")]
    _ = try await DemoProcess.run(["todo", "add", "first"] + store, in: folder.url)
    let runs = try await withThrowingTaskGroup(of: DemoProcess.Result.self) { group in
      for index in 1...6 {
        group.addTask {
          try await DemoProcess.run(["todo", "add", "task \(index)"] + store, in: folder.url)
        }
      }
      group.addTask { try await DemoProcess.run(["todo", "done", "1"] + store, in: folder.url) }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    for run in runs { #expect(run.status == 0, "\(run.errors)") }
    let ids = runs.compactMap { run -> Int? in
      guard let range = run.output.range(of: #"Added #(\d+) "#, options: .regularExpression)
      else { return nil }
      return Int(run.output[range].dropFirst(7).dropLast(1))
    }
    #expect(ids.count == 6)
    #expect(Set(ids) == Set(2...7), "\(ids)")
    let list = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    #expect(list.status == 0, "\(list.errors)")
    #expect(list.output.contains("#1 [x] first"))
    for index in 1...6 { #expect(list.output.contains("task \(index)"), "\(list.output)") }
    #expect(list.output.contains("6 open, 1 done."))
  }

  /// The issue's scenario: four `todo add` at once on a file that does not exist yet (the
  /// processes also race to create its tables).
  @Test func fourAddsAtOnceOnANewFileKeepEveryTodo() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    defer { folder.remove() }
    let store = ["--store", folder.path("new/todos.sqlite")]
    let runs = try await DemoProcess.runAtOnce(
      (1...4).map { ["todo", "add", "task \($0)"] + store }, in: folder.url)
    for run in runs { #expect(run.status == 0, "\(run.errors)") }
    let list = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    for index in 1...4 { #expect(list.output.contains("task \(index)"), "\(list.output)") }
    #expect(list.output.contains("4 open, 0 done."), "\(list.output)")
  }

  /// A list saved by a demo before the shared lane is where the lane starts, once, however many
  /// commands run at once the first time.
  @Test func aListSavedBeforeTheSharedLaneIsKeptOnce() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    defer { folder.remove() }
    let path = folder.path("todos.sqlite")
    let old = #"{"items":[{"id":1,"title":"old one","isDone":false}],"nextID":2}"#
    do {
      let database = try SQLiteStorage(path: path)
      try database.write([
        PersistedRecord(key: "todo.todos", version: 1, data: Data(old.utf8), updatedAt: Date())
      ])
    }
    let listed = try await DemoProcess.run(["todo", "list", "--store", path], in: folder.url)
    #expect(listed.output.contains("#1 [ ] old one"), "\(listed.output) \(listed.errors)")
    let runs = try await withThrowingTaskGroup(of: DemoProcess.Result.self) { group in
      for index in 1...3 {
        group.addTask {
          try await DemoProcess.run(
            ["todo", "add", "new \(index)", "--store", path], in: folder.url)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    for run in runs { #expect(run.status == 0, "\(run.errors)") }
    let list = try await DemoProcess.run(["todo", "list", "--store", path], in: folder.url)
    #expect(list.output.components(separatedBy: "old one").count == 2, "\(list.output)")
    #expect(list.output.contains("4 open, 0 done."), "\(list.output)")
  }
}
