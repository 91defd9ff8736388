import Foundation
import GRDB
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceDemo
@testable import SluiceSQLite

/// Errors read as a sentence and its cause in words: no `SQLite error 26`, no
/// `NSCocoaErrorDomain Code=513`.
@Suite("sluice-demo error causes")
struct DemoErrorCauseTests {
  @Test func aFileThatIsNotADatabaseIsSaidToBeOne() throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let path = folder.path("notes.txt")
    try Data(String(repeating: "not a database\n", count: 200).utf8)
      .write(to: URL(fileURLWithPath: path))
    let error = try #require(throws: (any Error).self) { try SQLiteStorage(path: path) }
    #expect(DemoError.cause(of: error, at: path) == "the file is not an SQLite database")
    let message = DemoError.cannotOpenStore(
      path: path, reason: DemoError.cause(of: error, at: path)
    ).description
    #expect(message.hasPrefix("cannot open the store at \(path): the file is not an SQLite"))
  }

  @Test func aFolderThatDoesNotExistIsNamed() throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    let path = folder.path("missing/todos.sqlite")
    let error = try #require(throws: (any Error).self) { try SQLiteStorage(path: path) }
    #expect(
      DemoError.cause(of: error, at: path) == "the folder \(folder.path("missing")) does not exist")
  }

  @Test func aFolderThatCannotBeCreatedSaysWhy() throws {
    let folder = try TemporaryFolder(prefix: "sluice-demo-tests")
    try Data("a file".utf8).write(to: URL(fileURLWithPath: folder.path("file")))
    let error = try #require(throws: (any Error).self) {
      try FileManager.default.createDirectory(
        atPath: folder.path("file/sub"), withIntermediateDirectories: true)
    }
    #expect(DemoError.cause(of: error) == "a part of the path is a file, not a folder")
  }

  @Test(
    "SQLite result codes, Cocoa and POSIX errors become words",
    arguments: [
      (DatabaseError(resultCode: .SQLITE_NOTADB), "the file is not an SQLite database"),
      (DatabaseError(resultCode: .SQLITE_FULL), "the disk is full"),
      (DatabaseError(resultCode: .SQLITE_PERM), "permission denied"),
      (DatabaseError(resultCode: .SQLITE_BUSY), "the database is locked by another program"),
      (DatabaseError(resultCode: .SQLITE_CORRUPT), "the database file is damaged"),
      (
        Sluice.PersistenceError.storage(
          key: "todo.todos", operation: "write",
          underlying: DatabaseError(resultCode: .SQLITE_LOCKED)),
        "the database is locked by another program"
      ),
      (CocoaError(.fileWriteNoPermission), "permission denied"),
      (CocoaError(.fileWriteOutOfSpace), "the disk is full"),
      (NSError(domain: NSCocoaErrorDomain, code: 513), "permission denied"),
      (POSIXError(.EACCES), "permission denied"),
      (POSIXError(.ENOSPC), "the disk is full"),
    ] as [(any Error, String)])
  func causesAreWords(error: any Error, cause: String) {
    let words = DemoError.cause(of: error)
    #expect(words == cause)
    for raw in ["SQLite error", "Code=", "Domain"] { #expect(!words.contains(raw)) }
  }

  @Test(
    "a file another program holds says so and to try again; SQLite's text is a detail line",
    arguments: [
      Sluice.PersistenceError.storage(
        key: "todo.todos", operation: "write",
        underlying: SQLiteStorageError(
          .busy, path: "/tmp/todos.sqlite", operation: "append to the shared log",
          busyTimeout: .seconds(5),
          underlying: DatabaseError(
            resultCode: .SQLITE_BUSY, message: "database is locked",
            sql: "BEGIN IMMEDIATE TRANSACTION"))),
      SQLiteStorageError(
        .busy, path: "/tmp/todos.sqlite", operation: "open", busyTimeout: .seconds(10),
        underlying: DatabaseError(
          resultCode: .SQLITE_BUSY, message: "database is locked",
          sql: "BEGIN IMMEDIATE TRANSACTION")),
      DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked"),
    ] as [any Error])
  func aFileHeldByAnotherProgramSaysSoAndToTryAgain(error: any Error) {
    let path = "/tmp/todos.sqlite"
    let message = DemoError.onStore(error, at: path) {
      .cannotOpenStore(path: path, reason: $0)
    }.description
    let lines = message.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(message)")
    let sentence = lines.first ?? ""
    #expect(sentence.hasPrefix("another program is using the store file \(path)"), "\(sentence)")
    #expect(sentence.contains("Try again"), "\(sentence)")
    for raw in ["SQLite error", "BEGIN", "database is locked", "Choose another file"] {
      #expect(!sentence.contains(raw), "\(sentence)")
    }
    #expect(lines.last?.hasPrefix("Detail: ") == true)
    #expect(lines.last?.contains("database is locked") == true, "\(message)")
  }

  @Test func anotherErrorOnTheStoreKeepsItsSentence() {
    let path = "/tmp/todos.sqlite"
    let message = DemoError.onStore(DatabaseError(resultCode: .SQLITE_NOTADB), at: path) {
      .cannotOpenStore(path: path, reason: $0)
    }.description
    #expect(message.hasPrefix("cannot open the store at \(path): the file is not an SQLite"))
  }
}
