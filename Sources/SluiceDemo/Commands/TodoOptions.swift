import ArgumentParser
import SluiceSQLite

/// Where the todo commands keep the list: the store options (`--store PATH`, `--in-memory`), or
/// a PostgreSQL database shared by several machines (`--postgres URL`).
struct TodoOptions: ParsableArguments {
  @OptionGroup var store: StoreOptions

  @Option(
    name: .customLong("postgres"),
    help: ArgumentHelp(
      "A PostgreSQL database that keeps the list on a lane shared by every machine that uses "
        + "it (postgres://user:password@host:port/database); its tables are created when "
        + "missing.",
      valueName: "url"))
  var postgresURL: String?

  func validate() throws {
    guard let postgresURL else { return }
    if store.path != nil || store.inMemory {
      throw ValidationError("--postgres cannot be used with --store or --in-memory.")
    }
    if postgresURL.isEmpty {
      throw ValidationError("--postgres needs a URL: postgres://user@host:port/database.")
    }
  }
}
