import Sluice
import SluicePostgres

/// The log operations on the lane named by default, as the tests of one lane use them.
extension PostgresLogEngine {
  func append(_ records: [SharedLogRecord]) async throws -> [UInt64] {
    try await append(records, to: SharedLane.defaultLane)
  }

  func entries(after sequence: UInt64, limit: Int) async throws -> [SharedLogEntry] {
    try await entries(of: SharedLane.defaultLane, after: sequence, limit: limit)
  }

  func head() async throws -> UInt64 {
    try await head(of: SharedLane.defaultLane)
  }

  func waitForEntries(after sequence: UInt64, timeout: Duration) async throws {
    try await waitForEntries(of: SharedLane.defaultLane, after: sequence, timeout: timeout)
  }

  func latestSnapshot() async throws -> SharedSnapshot? {
    try await latestSnapshot(of: SharedLane.defaultLane)
  }

  func snapshot(at sequence: UInt64) async throws -> SharedSnapshot? {
    try await snapshot(of: SharedLane.defaultLane, at: sequence)
  }

  func saveSnapshot(_ snapshot: SharedSnapshot) async throws {
    try await saveSnapshot(snapshot, to: SharedLane.defaultLane)
  }
}
