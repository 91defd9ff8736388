/// Where a node of a shared lane keeps the actions it dispatched until the log takes them, so
/// that they survive a crash of its process (see ``SharedLane``'s `outbox` parameter).
///
/// The node keeps each action here before it appends it to the log, and forgets it once the log
/// took it. A node that starts appends whatever a previous run left here, under the origin and
/// origin sequence it was kept with: the log applies it once, also when the previous run
/// appended it and crashed before it could forget it.
///
/// `SQLiteOutboxStore` (in SluiceSQLite) keeps the actions in a local SQLite file.
public protocol SharedOutboxStore: Sendable {
  /// Every record kept, ordered by origin, then origin sequence.
  func keptRecords() async throws -> [SharedLogRecord]

  /// Keeps `records` durably before returning; a record whose origin and origin sequence are
  /// kept already stays as it is.
  func keep(_ records: [SharedLogRecord]) async throws

  /// Forgets the records of `origin` numbered up to `originSequence`: the log took them.
  func forget(origin: String, through originSequence: UInt64) async throws
}
