import Foundation
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceSQLite

// Fixtures of the SQLite acceptance tests (prefixed `Sql`).

/// A counter, the simplest persisted state.
struct SqlCounter: Codable, Equatable, Sendable {
  var value = 0
}

/// A second state type, to share a database file with ``SqlCounter``.
struct SqlProfile: Codable, Equatable, Sendable {
  var name = ""
  var tags: [String] = []
}

struct SqlIncrement: Action {}

struct SqlRename: Action {
  let name: String
}

struct SqlTag: Action {
  let tag: String
}

let sqlCounterReducer = Reducer<SqlCounter>().on(SqlIncrement.self) { state, _ in
  state.value += 1
}

let sqlProfileReducer = Reducer<SqlProfile>()
  .on(SqlRename.self) { state, action in state.name = action.name }
  .on(SqlTag.self) { state, action in state.tags.append(action.tag) }

/// A counter store persisted under `key`.
func sqlCounterStore(_ key: PersistenceKey<SqlCounter>) -> Store<SqlCounter> {
  Store(initialState: SqlCounter(), reducer: sqlCounterReducer, persistence: key)
}

/// A profile store persisted under `key`, starting from `initialState`.
func sqlProfileStore(
  _ key: PersistenceKey<SqlProfile>, initialState: SqlProfile = SqlProfile()
) -> Store<SqlProfile> {
  Store(initialState: initialState, reducer: sqlProfileReducer, persistence: key)
}

/// A note at schema version 2: version 1 had `name` (now `title`) and no `pinned`.
struct SqlNoteV2: Codable, Equatable, Sendable {
  var title = ""
  var pinned = false
}

/// A note at schema version 3: version 2 had no `tags`.
struct SqlNoteV3: Codable, Equatable, Sendable {
  var title = ""
  var pinned = false
  var tags: [String] = []
}

struct SqlPin: Action {}

let sqlNoteV2Reducer = Reducer<SqlNoteV2>().on(SqlPin.self) { state, _ in state.pinned = true }

/// v1 → v2: `name` becomes `title`, `pinned` appears.
let sqlNoteMigrations: [Int: PersistenceMigration] = [
  1: { state in
    state["title"] = state["name"]
    state["name"] = nil
    state["pinned"] = false
  },
  2: { state in state["tags"] = ["migrated"] },
]

/// A record written straight into the table, as an older (or newer) version of the app would.
func sqlRecord(_ key: String, version: Int, json: String) -> PersistedRecord {
  PersistedRecord(key: key, version: version, data: Data(json.utf8), updatedAt: Date())
}

/// The JSON object stored under `key`, decoded for comparisons that ignore key order.
func sqlStoredJSON(_ storage: SQLiteStorage, _ key: String) throws -> StateValue? {
  guard let record = try storage.read(key) else { return nil }
  return try JSONDecoder().decode(StateValue.self, from: record.data)
}

/// The persistence errors reported on `store.errors` so far.
func sqlPersistenceErrors<State>(_ store: Store<State>) -> [PersistenceError] {
  store.errors.recent.compactMap { $0.error as? PersistenceError }
}

/// A storage that tells each write it passes on to an ``SQLiteStorage``: the event a test of
/// the coalescing waits for, instead of looking at the file until a deadline.
final class SqlWriteSignal: PersistenceStorage {
  // Sendable: immutable; `SQLiteStorage` and the continuation are Sendable.
  let database: SQLiteStorage
  /// Every write that reached the file, in order.
  let writes: AsyncStream<[PersistedRecord]>
  private let continuation: AsyncStream<[PersistedRecord]>.Continuation

  init(_ database: SQLiteStorage) {
    self.database = database
    (writes, continuation) = AsyncStream.makeStream()
  }

  func read(_ key: String) throws -> PersistedRecord? { try database.read(key) }

  func write(_ records: [PersistedRecord]) throws {
    try database.write(records)
    continuation.yield(records)
  }

  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try database.quarantine(bytes, of: key, reason: reason)
  }
}

/// The first element of `stream`, or `nil` when the stream ends first, or when none came
/// within ``hangGuard``, whose expiry means a deadlock, not a slow machine.
func sqlFirst<Element: Sendable>(of stream: AsyncStream<Element>) async -> Element? {
  await withTaskGroup(of: Element?.self) { group in
    group.addTask {
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
    }
    group.addTask {
      try? await Task.sleep(for: hangGuard)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

/// Waits (without blocking a thread) until `condition` holds or `timeout` passes: a hang guard
/// of ``hangGuard`` by default, whose expiry means a deadlock, not a slow machine.
func sqlEventually(
  timeout: Duration = hangGuard, _ condition: () throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    try? await Task.sleep(for: .milliseconds(2))
  }
  return try condition()
}

/// What the store's persistence found when it was made, for messages.
func sqlOutcome<State: Codable>(_ store: Store<State>) -> String {
  store.persistence.map { "\($0.restoreOutcome)" } ?? "no persistence"
}
