import Foundation
import GRDB
import Sluice
import SluiceSQLite
import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `sluice-demo todo add|list|done|clear`, and what bad input does: a clear message, a non-zero
/// exit status, and nothing stored lost.
@Suite("sluice-demo todo")
struct TodoCommandTests {
  @Test func addListDoneAndClearWorkOnTheStoreFile() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let store = ["--store", folder.path("todos.sqlite")]
    let empty = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    #expect(empty.status == 0)
    #expect(empty.output.contains("No todos in \(folder.path("todos.sqlite"))"))

    let milk = try await DemoProcess.run(["todo", "add", "Buy", "milk"] + store, in: folder.url)
    #expect(milk.status == 0, "\(milk.errors)")
    #expect(milk.output.contains("Added #1 \"Buy milk\". 1 todo, 0 done."))
    #expect(milk.output.contains("Saved in \(folder.path("todos.sqlite"))."))
    let call = try await DemoProcess.run(["todo", "add", "Call Ada"] + store, in: folder.url)
    #expect(call.output.contains("Added #2 \"Call Ada\". 2 todos, 0 done."))

    let done = try await DemoProcess.run(["todo", "done", "1"] + store, in: folder.url)
    #expect(done.status == 0)
    #expect(done.output.contains("Done: #1 \"Buy milk\". 2 todos, 1 done."))
    let again = try await DemoProcess.run(["todo", "done", "1"] + store, in: folder.url)
    #expect(again.status == 0)
    #expect(again.output.contains("#1 \"Buy milk\" was already done."))

    let list = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    expectInOrder(list.output, ["#1 [x] Buy milk", "#2 [ ] Call Ada", "1 open, 1 done."])

    let clear = try await DemoProcess.run(["todo", "clear"] + store, in: folder.url)
    #expect(clear.output.contains("Removed 1 todo; 1 todo, 0 done left."))
    let afterClear = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    #expect(!afterClear.output.contains("Buy milk"))
    #expect(afterClear.output.contains("#2 [ ] Call Ada"))

    // Ids are never reused, even after a clear.
    let next = try await DemoProcess.run(["todo", "add", "Water plants"] + store, in: folder.url)
    #expect(next.output.contains("Added #3 \"Water plants\""))
    let all = try await DemoProcess.run(["todo", "clear", "--all"] + store, in: folder.url)
    #expect(all.output.contains("Removed 2 todos; 0 todos, 0 done left."))
  }

  @Test func theDefaultStoreIsDotSluiceInTheCurrentFolderAndTheTourKeepsItsOwnList() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    _ = try await DemoProcess.run(["todo", "add", "Mine"], in: folder.url)
    #expect(FileManager.default.fileExists(atPath: folder.path(".sluice/demo.sqlite")))
    _ = try await DemoProcess.run(TourTests.fast, in: folder.url)
    let list = try await DemoProcess.run(["todo", "list"], in: folder.url)
    #expect(list.output.contains("#1 [ ] Mine"))
    #expect(!list.output.contains("Water the plants"))
    #expect(list.output.contains("a separate list: sluice-demo shows them"), "\(list.output)")
  }

  @Test func anEmptyListAfterTheTourSaysTheToursTodosAreASeparateList() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let tour = try await DemoProcess.run(TourTests.fast, in: folder.url)
    #expect(tour.status == 0, "\(tour.errors)")
    #expect(tour.output.contains("keep a list of your own, apart from the tour's"))
    let list = try await DemoProcess.run(["todo", "list"], in: folder.url)
    #expect(list.status == 0, "\(list.errors)")
    #expect(list.output.contains("No todos in ./.sluice/demo.sqlite."), "\(list.output)")
    #expect(
      list.output.contains("The tour's 6 todos are a separate list: sluice-demo shows them"),
      "\(list.output)")
  }

  @Test(
    "an id that is not a positive number says what ids are",
    arguments: [["-1"], ["0"], ["-7", "--in-memory"], ["1", "2"], ["--in-memory", "--", "-1"]])
  func anIdThatIsNotAPositiveNumberSaysWhatIdsAre(words: [String]) async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(["todo", "done"] + words, in: folder.url)
    #expect(run.status == 64, "\(words): \(run.status) \(run.errors)")
    #expect(!run.errors.contains("Missing expected argument"), "\(run.errors)")
    #expect(run.errors.contains("positive number"), "\(run.errors)")
    #expect(run.errors.contains("Usage: "), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
  }

  @Test func inMemoryTodosAreNotWritten() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let add = try await DemoProcess.run(
      ["todo", "add", "Ephemeral", "--in-memory"], in: folder.url)
    #expect(add.status == 0)
    #expect(add.output.contains("Kept in memory only: nothing was written."))
    #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
  }

  @Test func anIdAfterTheEndOfTheOptionsIsAnId() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(["todo", "done", "--in-memory", "--", "1"], in: folder.url)
    #expect(run.status == 1, "\(run.errors)")
    #expect(run.errors.contains("there is no todo #1: the list is empty."), "\(run.errors)")
  }

  @Test func anUnknownIdIsAnErrorAndChangesNothing() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let store = ["--store", folder.path("todos.sqlite")]
    _ = try await DemoProcess.run(["todo", "add", "Keep", "me"] + store, in: folder.url)
    let unknown = try await DemoProcess.run(["todo", "done", "9"] + store, in: folder.url)
    #expect(unknown.status == 1)
    #expect(unknown.errors.contains("there is no todo #9; the ids are #1."))
    let list = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    #expect(list.output.contains("#1 [ ] Keep me"))
    let emptyFolder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let none = try await DemoProcess.run(["todo", "done", "1", "--in-memory"], in: emptyFolder.url)
    #expect(none.status == 1)
    #expect(none.errors.contains("there is no todo #1: the list is empty."))
  }

  @Test(
    "bad arguments are refused with a usage message",
    arguments: [
      ["frobnicate"], ["todo", "frobnicate"], ["todo", "add"], ["todo", "add", "  "],
      ["todo", "done", "first"], ["todo", "done"], ["todo", "done", "-1"],
      ["todo", "list", "--store", "x.sqlite", "--in-memory"],
      ["todo", "list", "--store", ""], ["--no-such-flag"],
    ])
  func badArgumentsAreRefused(arguments: [String]) async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(arguments, in: folder.url)
    #expect(run.status == 64, "\(arguments): \(run.status) \(run.errors)")
    #expect(run.errors.contains("Error: "), "\(arguments): \(run.errors)")
    #expect(run.errors.contains("Usage: ") || run.errors.contains("Help: "), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: folder.path(".sluice")))
  }

  @Test(
    "an unknown command says so and points to --help",
    arguments: [
      (["frobnicate"], "Unknown command 'frobnicate'.", "sluice-demo --help"),
      (
        ["todo", "frobnicate", "--in-memory"], "Unknown command 'todo frobnicate'.",
        "sluice-demo todo --help"
      ),
    ])
  func anUnknownCommandSaysSo(arguments: [String], message: String, help: String) async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let run = try await DemoProcess.run(arguments, in: folder.url)
    #expect(run.status == 64)
    #expect(run.errors.contains("Error: \(message)"), "\(run.errors)")
    #expect(run.errors.contains(help), "\(run.errors)")
    #expect(!run.errors.contains("Usage: sluice-demo tour"), "\(run.errors)")
    #expect(run.output.isEmpty)
  }

  @Test func aStorePathThatCannotBeWrittenIsAClearError() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let file = folder.path("not-a-folder")
    try Data("keep".utf8).write(to: URL(fileURLWithPath: file))
    let run = try await DemoProcess.run(
      ["todo", "add", "x", "--store", "\(file)/todos.sqlite"], in: folder.url)
    #expect(run.status == 1)
    #expect(run.errors.contains("cannot open the store at \(file)/todos.sqlite"))
    #expect(run.errors.contains("\(file) is a file, not a folder"))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")

    let tour = try await DemoProcess.run(
      ["--store", "\(file)/deeper/tour.sqlite"] + TourTests.fast, in: folder.url)
    #expect(tour.status == 1)
    #expect(tour.errors.contains("is a file, not a folder"))
    #expect(!tour.output.contains("2. Actions"))

    let isFolder = try await DemoProcess.run(
      ["todo", "list", "--store", folder.url.path], in: folder.url)
    #expect(isFolder.status == 1)
    #expect(isFolder.errors.contains("it is a folder"))
  }

  @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAsItWas() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let path = folder.path("notes.txt")
    let text = String(repeating: "my precious notes, not a database\n", count: 200)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let run = try await DemoProcess.run(["todo", "add", "x", "--store", path], in: folder.url)
    #expect(run.status == 1)
    #expect(
      run.errors.contains(
        "cannot open the store at \(path): the file is not an SQLite database."),
      "\(run.errors)")
    #expect(!run.errors.contains("SQLite error"), "\(run.errors)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    let tour = try await DemoProcess.run(["--store", path] + TourTests.fast, in: folder.url)
    #expect(tour.status == 1)
    #expect(tour.errors.contains("the file is not an SQLite database"), "\(tour.errors)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
  }

  /// `todo list` opens the store read-only. On a file made before the schema went through
  /// GRDB's migrator (no `grdb_migrations` table), it lists the todos and leaves the file as it
  /// was, where a read-write open would record the migrations. On a missing file, it creates
  /// nothing.
  @Test func listReadsTheStoreWithoutWritingToIt() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    defer { folder.remove() }
    let path = folder.path("todos.sqlite")
    let add = try await DemoProcess.run(
      ["todo", "add", "Buy milk", "--store", path], in: folder.url)
    #expect(add.status == 0, "\(add.errors)")
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in try db.drop(table: "grdb_migrations") }
    try queue.close()
    let before = try #require(FileManager.default.contents(atPath: path))

    let list = try await DemoProcess.run(["todo", "list", "--store", path], in: folder.url)
    #expect(list.status == 0, "\(list.errors)")
    #expect(list.output.contains("#1 [ ] Buy milk"))
    #expect(FileManager.default.contents(atPath: path) == before)
    let migrated = try await DatabaseQueue(path: path).read { db in
      try db.tableExists("grdb_migrations")
    }
    #expect(!migrated)

    let missing = folder.path("not-yet/todos.sqlite")
    let empty = try await DemoProcess.run(["todo", "list", "--store", missing], in: folder.url)
    #expect(empty.status == 0, "\(empty.errors)")
    #expect(empty.output.contains("No todos in \(missing)"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("not-yet")))
  }

  /// `todo list` on a file and folder the user cannot write prints the list. Root writes
  /// whatever the permissions say (as in CI): there, the permission part is skipped, and the
  /// test only checks that the list is printed (the test above shows that it reads the file
  /// read-only).
  @Test func listWorksOnAFileAndFolderTheUserCannotWrite() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    defer { folder.remove() }
    let locked = folder.url.appendingPathComponent("locked")
    let path = locked.appendingPathComponent("todos.sqlite").path
    let store = ["--store", path]
    _ = try await DemoProcess.run(["todo", "add", "Buy milk"] + store, in: folder.url)
    _ = try await DemoProcess.run(["todo", "add", "Call Ada"] + store, in: folder.url)

    let enforced = geteuid() != 0
    let manager = FileManager.default
    if enforced {
      try manager.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
      try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
    }
    defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }

    let list = try await DemoProcess.run(["todo", "list"] + store, in: folder.url)
    #expect(list.status == 0, "\(list.errors)")
    expectInOrder(list.output, ["#1 [ ] Buy milk", "#2 [ ] Call Ada", "2 open, 0 done."])
    if enforced {
      let add = try await DemoProcess.run(["todo", "add", "x"] + store, in: folder.url)
      #expect(add.status == 1)
      #expect(add.errors.contains("cannot open the store at \(path)"), "\(add.errors)")
    }
  }

  @Test func aListSavedByANewerVersionIsRefusedAndKept() async throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let path = folder.path("todos.sqlite")
    let bytes = Data(#"{"items":[],"nextID":1,"fromTheFuture":true}"#.utf8)
    do {
      let database = try SQLiteStorage(path: path)
      try database.write([
        PersistedRecord(key: "todo.todos", version: 7, data: bytes, updatedAt: Date())
      ])
    }
    for arguments in [["todo", "list"], ["todo", "add", "x"], ["todo", "clear", "--all"]] {
      let run = try await DemoProcess.run(arguments + ["--store", path], in: folder.url)
      #expect(run.status == 1, "\(arguments)")
      #expect(
        run.errors.contains("the todo list stored in \(path) cannot be used"), "\(run.errors)")
      #expect(run.errors.contains("it was left untouched"))
    }
    let database = try SQLiteStorage(path: path)
    let record = try #require(try database.read("todo.todos"))
    #expect(record.version == 7)
    #expect(record.data == bytes)
  }
}
