import Foundation
import GRDB

/// `SluiceCrashProbe --hold-write-lock SECONDS <database>`: another process writing to the
/// database, for the busy-timeout tests (Tests/SluiceSQLiteTests/SQLiteBusyTests.swift).
///
/// Opens the database as an app would (WAL mode, creating the file when missing), begins an
/// immediate transaction — the database's write lock — and prints `locked`; holds it for
/// `seconds`, commits, prints `released` and exits 0. Until then, another connection cannot
/// write, nor open a file whose schema it has to create.
func holdDatabaseWriteLock(on path: String, for seconds: Double) -> Never {
  do {
    let pool = try DatabasePool(path: path)
    try pool.writeWithoutTransaction { db in
      try db.inTransaction(.immediate) {
        FileHandle.standardOutput.write(Data("locked\n".utf8))
        Thread.sleep(forTimeInterval: seconds)
        return .commit
      }
    }
    try pool.close()
  } catch {
    fail("cannot hold the write lock on \(path): \(error)")
  }
  FileHandle.standardOutput.write(Data("released\n".utf8))
  exit(0)
}
