import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

// Fixtures shared by the persistence acceptance tests. Every type is prefixed with `Pst`.

/// A small persisted state.
struct PstCounter: Codable, Equatable, Sendable {
  var value = 0
  var label = ""
}

/// Adds one.
struct PstBump: Action {}

/// Sets the value.
struct PstSet: Action {
  var value: Int
}

/// Changes nothing.
struct PstNoop: Action {}

let pstReducer = Reducer<PstCounter>()
  .on(PstBump.self) { state, _ in state.value += 1 }
  .on(PstSet.self) { state, action in state.value = action.value }

/// A state with a transient property: `isLoading` is left out of `CodingKeys` and has a default,
/// so it is never persisted.
struct PstSettings: Codable, Equatable, Sendable {
  var theme = "light"
  var fontSize = 12
  var isLoading = false

  enum CodingKeys: String, CodingKey {
    case theme
    case fontSize
  }
}

struct PstSetTheme: Action {
  var theme: String
}

struct PstSetLoading: Action {
  var isLoading: Bool
}

let pstSettingsReducer = Reducer<PstSettings>()
  .on(PstSetTheme.self) { state, action in state.theme = action.theme }
  .on(PstSetLoading.self) { state, action in state.isLoading = action.isLoading }

/// Schema version 3 of a note: v1 was `{"name"}`, v2 `{"title"}`, v3 adds `tags`.
struct PstNote: Codable, Equatable, Sendable {
  var title = "untitled"
  var tags: [String] = ["initial"]
}

struct PstRetitle: Action {
  var title: String
}

let pstNoteReducer = Reducer<PstNote>()
  .on(PstRetitle.self) { state, action in state.title = action.title }

/// The error of a failing disk or migration.
struct PstDiskError: Error, Equatable {
  var code = 5
}

/// The JSON of a value, keys sorted.
func pstJSON(_ value: some Encodable) -> Data {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  return try! encoder.encode(value)
}

/// A raw record of `json` written by "an older (or newer) version of the app".
func pstRecord(_ key: String, version: Int, json: String) -> PersistedRecord {
  PersistedRecord(key: key, version: version, data: Data(json.utf8), updatedAt: Date())
}

/// The state of the record under `key`, decoded.
func pstDecode<T: Decodable>(_ type: T.Type, _ record: PersistedRecord?) -> T? {
  guard let record else { return nil }
  return try? JSONDecoder().decode(T.self, from: record.data)
}

/// The state inside the envelope bytes `data` (whatever key the envelope names).
func pstEnvelopeState<T: Decodable>(_ type: T.Type, _ data: Data?) -> T? {
  guard let state = pstObject(data)?["state"],
    let json = try? JSONSerialization.data(withJSONObject: state)
  else { return nil }
  return try? JSONDecoder().decode(T.self, from: json)
}

/// The JSON object in `data`, for inspecting what was written.
func pstObject(_ data: Data?) -> [String: Any]? {
  guard let data else { return nil }
  return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. For writes
/// that happen on the persistence queue after a clock advance: never a fixed sleep. The timeout
/// is a hang guard (``hangGuard`` by default): its expiry means a deadlock, not a slow machine.
@discardableResult
func pstWait(
  timeout: Duration = hangGuard, _ condition: @Sendable () -> Bool
) async -> Bool {
  await effEventually(timeout: timeout, condition)
}

/// Waits until the coalescing writer of `store` is asleep on `clock` or has nothing pending, so
/// that a write not due at the clock's current time can be checked absent. A writer that woke is
/// off the clock's sleepers until it sleeps again or takes the pending change to write it (a
/// write may still be finishing then: tests that expect one wait for `writeCount`).
func pstSettle(_ store: Store<some Codable & Sendable>, _ clock: ManualClock) async {
  let persistence = store.persistence
  let settled = await pstWait {
    clock.sleeperCount > 0 || persistence?.hasPendingChanges == false
  }
  #expect(settled, "the persistence writer did not settle")
}

/// A new folder under the temporary directory, removed after `body`.
func withPstFolder<R>(_ body: (URL) async throws -> R) async rethrows -> R {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("sluice-pst-\(UUID().uuidString)", isDirectory: true)
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  return try await body(folder)
}

/// A unique `UserDefaults` suite, removed after `body`.
func withPstSuite<R>(_ body: (String) async throws -> R) async rethrows -> R {
  let suite = "sluice-pst-\(UUID().uuidString)"
  defer {
    UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
    UserDefaults(suiteName: suite)?.synchronize()
  }
  return try await body(suite)
}

/// The files in `folder`, sorted, hidden ones included.
func pstFiles(in folder: URL) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

extension RestoreOutcome {
  var pstIsEmpty: Bool { if case .empty = self { true } else { false } }

  var pstRestoredVersion: Int? { if case .restored(let version) = self { version } else { nil } }

  var pstMigration: (from: Int, to: Int)? {
    if case .migrated(let from, let to) = self { (from, to) } else { nil }
  }

  /// The error and quarantine key, when the data was discarded.
  var pstDiscarded: (error: PersistenceError, quarantineKey: String?)? {
    if case .discarded(let error, let key) = self { (error, key) } else { nil }
  }

  var pstRefused: PersistenceError? { if case .refused(let error) = self { error } else { nil } }

  var pstUnreadable: PersistenceError? {
    if case .unreadable(let error) = self { error } else { nil }
  }
}

extension PersistenceError {
  var pstIsCorrupt: Bool { if case .corrupt = self { true } else { false } }

  var pstCorruptBytes: Data? { if case .corrupt(_, let bytes, _) = self { bytes } else { nil } }

  var pstIsUndecodable: Bool { if case .undecodable = self { true } else { false } }

  var pstStorageOperation: String? {
    if case .storage(_, let operation, _) = self { operation } else { nil }
  }
}

/// Checks that the store reported `check`-matching persistence errors on its channel, with the
/// source `.persistence(key)`, and that `lastError` is one too.
func pstExpectReported<S: Codable & Sendable>(
  _ store: Store<S>, key: String,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ check: (PersistenceError) -> Bool
) {
  let event = store.errors.last
  #expect(event?.source == .persistence(key), sourceLocation: sourceLocation)
  let reported = event?.error as? PersistenceError
  #expect(
    reported.map(check) == true, "reported: \(String(describing: reported))",
    sourceLocation: sourceLocation)
  let last = store.persistence?.lastError
  #expect(
    last.map(check) == true, "lastError: \(String(describing: last))",
    sourceLocation: sourceLocation)
}

/// A backend that returns a fixed record, for records a byte backend cannot hold (a record whose
/// `data` is not JSON, as SQLite could return), and that can refuse to quarantine.
final class PstStubStorage: PersistenceStorage, @unchecked Sendable {
  // @unchecked Sendable: every field is touched only under `lock`.
  private let lock = NSLock()
  private var record: PersistedRecord?
  private var quarantined: [String: Data] = [:]
  private var written: [PersistedRecord] = []
  private let quarantineFails: Bool

  init(record: PersistedRecord?, quarantineFails: Bool = false) {
    self.record = record
    self.quarantineFails = quarantineFails
  }

  /// The record under the key now.
  var current: PersistedRecord? { lock.withLock { record } }
  var quarantinedBytes: [String: Data] { lock.withLock { quarantined } }
  var writes: [PersistedRecord] { lock.withLock { written } }

  func read(_ key: String) throws -> PersistedRecord? {
    lock.withLock { record?.key == key ? record : nil }
  }

  func write(_ records: [PersistedRecord]) throws {
    lock.withLock {
      written += records
      if let last = records.last { record = last }
    }
  }

  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try lock.withLock {
      if quarantineFails { throw PstDiskError(code: 28) }
      let target = "\(key).quarantine.\(quarantined.count + 1)"
      quarantined[target] = bytes
      return target
    }
  }
}

/// Calls `action` once `done()` was called `count` times.
final class PstCountdown: @unchecked Sendable {
  // @unchecked Sendable: `remaining` is only touched under `lock`.
  private let lock = NSLock()
  private var remaining: Int
  private let action: @Sendable () -> Void

  init(_ count: Int, _ action: @escaping @Sendable () -> Void) {
    remaining = count
    self.action = action
  }

  func done() {
    let last = lock.withLock {
      remaining -= 1
      return remaining == 0
    }
    if last { action() }
  }
}
