import Foundation

/// A backend in memory, for tests and previews: records live as long as the storage object,
/// so two stores made one after the other with the same storage see a "relaunch".
///
/// ```swift
/// let storage = InMemoryStorage()
/// let first = Store(initialState: Counter(), reducer: r, persistence: .inMemory("c", storage))
/// first.dispatch(Increment()); try await first.persistence?.flush()
/// let second = Store(initialState: Counter(), reducer: r, persistence: .inMemory("c", storage))
/// // second.state.value == 1
/// ```
public final class InMemoryStorage: PersistenceStorage, @unchecked Sendable {
  // @unchecked Sendable: every field is touched only under `lock`.
  private let lock = InternalLock()
  private var stored: [String: Data] = [:]
  private var failure: (any Error)?
  private var writeCount = 0

  /// An empty storage.
  public init() {}

  /// The record under `key`, if it is one.
  public func record(_ key: String) -> PersistedRecord? { try? read(key) }

  /// Every key stored, quarantined ones included.
  public var keys: [String] { lock.withLock { stored.keys.sorted() } }

  /// The raw bytes under `key`.
  public func bytes(_ key: String) -> Data? { lock.withLock { stored[key] } }

  /// Replaces the bytes under `key`, to simulate damaged data.
  public func setBytes(_ bytes: Data?, for key: String) {
    lock.withLock { stored[key] = bytes }
  }

  /// The number of writes that succeeded.
  public var writes: Int { lock.withLock { writeCount } }

  /// Makes every read and write throw `error` until it is set back to `nil` (a failing disk).
  public func failAll(with error: (any Error)?) {
    lock.withLock { failure = error }
  }

  public func read(_ key: String) throws -> PersistedRecord? {
    let (bytes, failure) = lock.withLock { (stored[key], self.failure) }
    if let failure { throw failure }
    guard let bytes else { return nil }
    return try RecordEnvelope.decode(bytes, key: key)
  }

  public func write(_ records: [PersistedRecord]) throws {
    let encoded = try records.map { ($0.key, try RecordEnvelope.encode($0)) }
    try lock.withLock {
      if let failure { throw failure }
      for (key, bytes) in encoded { stored[key] = bytes }
      writeCount += 1
    }
  }

  public func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    try lock.withLock {
      if let failure { throw failure }
      let target = quarantineKey(for: key) { stored[$0] != nil }
      stored[target] = bytes
      return target
    }
  }
}

extension InMemoryStorage: EnvelopeStorage {
  package func storedBytes(_ key: String) throws -> Data? { bytes(key) }
}

extension PersistenceKey {
  /// A key in memory (for tests): see ``InMemoryStorage``.
  public static func inMemory(_ name: String, _ storage: InMemoryStorage) -> PersistenceKey {
    PersistenceKey(name, storage: storage)
  }
}
