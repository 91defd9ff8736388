import ArgumentParser
import SluiceSQLite

/// Where a command keeps its state: `--store PATH` or `--in-memory`.
struct StoreOptions: ParsableArguments {
  static let defaultPath = "./.sluice/demo.sqlite"

  @Option(
    name: .customLong("store"),
    help: ArgumentHelp(
      "The SQLite file that keeps the state; created when missing.", valueName: "path"))
  var path: String?

  @Flag(help: "Keep everything in memory: nothing is read from disk or written to it.")
  var inMemory = false

  func validate() throws {
    if inMemory, path != nil {
      throw ValidationError("--store and --in-memory cannot be used together.")
    }
    if let path, path.isEmpty {
      throw ValidationError("--store needs a file path.")
    }
  }

  /// Opens the storage the options name: to read and write, or (`.readOnly`) only to read.
  func open(_ mode: SQLiteStorage.Mode = .readWrite) throws(DemoError) -> DemoStorage {
    inMemory ? .inMemory() : try .open(path: path ?? Self.defaultPath, mode: mode)
  }
}
