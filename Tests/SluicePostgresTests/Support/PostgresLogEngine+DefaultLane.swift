import Sluice

@testable import SluicePostgres

/// The log operations on the lane named by default, as the tests of one lane use them.
extension PostgresLogEngine {
  func append(_ records: [SharedLogRecord]) async throws -> [UInt64] {
    try await append(records, to: "default")
  }

  func entries(after sequence: UInt64, limit: Int) async throws -> [(
    sequence: UInt64, record: SharedLogRecord
  )] {
    try await entries(of: "default", after: sequence, limit: limit)
  }

  func head() async throws -> UInt64 {
    try await head(of: "default")
  }

  func waitForEntries(after sequence: UInt64, timeout: Duration) async throws {
    try await waitForEntries(of: "default", after: sequence, timeout: timeout)
  }

  func latestSnapshot() async throws -> SharedSnapshot? {
    try await latestSnapshot(of: "default")
  }

  func snapshot(at sequence: UInt64) async throws -> SharedSnapshot? {
    try await snapshot(of: "default", at: sequence)
  }

  func saveSnapshot(_ snapshot: SharedSnapshot) async throws {
    try await saveSnapshot(snapshot, to: "default")
  }
}
