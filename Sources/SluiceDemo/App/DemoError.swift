/// What goes wrong in the demo, in words a user can act on. Each ends the command with a
/// non-zero exit status, before anything stored is changed.
enum DemoError: Error, CustomStringConvertible {
  /// The store file could not be opened or created.
  case cannotOpenStore(path: String, reason: String)
  /// What is stored under a key cannot be read by this version of the demo.
  case storedStateUnusable(what: String, path: String, reason: String)
  /// `todo done ID` with an id that is not in the list.
  case unknownTodo(id: Int, known: [Int])
  /// A change was made but could not be saved.
  case notSaved(path: String, reason: String)
  /// Another program held the store file for longer than the demo waits; `detail` is SQLite's
  /// own text, for the log.
  case storeBusy(path: String, waited: Duration?, detail: String)
  /// The PostgreSQL database of `--postgres` could not be used (a URL that cannot be read, a
  /// server that cannot be reached, a role that may not read the log).
  case cannotUseDatabase(place: String, reason: String)
  /// The PostgreSQL server of `--postgres` could not be reached (refused, down, or silent past
  /// the timeout) before the command changed anything.
  case serverUnreachable(place: String)
  /// The PostgreSQL server of `--postgres` could not be reached while the command's change was
  /// on its way: it may or may not be in the log.
  case changeUnconfirmed(place: String)
  /// `--postgres` given to a `sluice-demo` built without the `Postgres` trait.
  case builtWithoutPostgres(url: String)

  var description: String {
    switch self {
    case .cannotOpenStore(let path, let reason):
      "cannot open the store at \(path): \(reason). Choose another file with --store PATH, or "
        + "keep nothing on disk with --in-memory."
    case .storedStateUnusable(let what, let path, let reason):
      "the \(what) stored in \(path) cannot be used (\(reason)); it was left untouched."
    case .unknownTodo(let id, let known):
      known.isEmpty
        ? "there is no todo #\(id): the list is empty."
        : "there is no todo #\(id); the ids are \(known.map { "#\($0)" }.joined(separator: ", "))."
    case .notSaved(let path, let reason):
      "the change could not be saved to \(path): \(reason)."
    case .storeBusy(let path, let waited, let detail):
      "another program is using the store file \(path)"
        + (waited.map { " and kept it locked for more than \(Self.seconds($0))" } ?? "")
        + "; nothing was written to it. Try again once that program is done with it.\n"
        + "Detail: \(detail)"
    case .cannotUseDatabase(let place, let reason):
      "cannot use the PostgreSQL database at \(place): \(reason). Check the server and the URL "
        + "(--postgres postgres://user:password@host:port/database)."
    case .serverUnreachable(let place):
      "the PostgreSQL server at \(place) cannot be reached, so nothing was stored. Run the "
        + "command again once the server is up (if it stays unreachable, check the host and port "
        + "in --postgres)."
    case .changeUnconfirmed(let place):
      "the PostgreSQL server at \(place) could not be reached to confirm the change, so it may "
        + "not be stored. Once the server is up, run todo list with the same --postgres URL to "
        + "see, and run the command again if the change is missing."
    case .builtWithoutPostgres:
      "this sluice-demo was built without PostgreSQL, so --postgres is not available. Build and "
        + "run it with the Postgres trait: swift run --traits Postgres sluice-demo todo … "
        + "--postgres URL (the first such build also compiles SwiftNIO and postgres-nio)."
    }
  }
}

extension DemoError {
  /// `duration` in whole seconds, for messages: "5 s".
  static func seconds(_ duration: Duration) -> String {
    "\(max(1, duration.components.seconds)) s"
  }
}
