/// Where a node of a shared lane keeps the actions it dispatched until the log takes them, so
/// that they survive a crash of its process (see ``SharedLane``'s `outbox` parameter).
///
/// The node keeps each action here before it appends it to the log, and forgets it once the log
/// took it. A node that starts appends whatever a previous run left here, under the origin and
/// origin sequence it was kept with: the log applies it once, also when the previous run
/// appended it and crashed before it could forget it.
///
/// One store may serve the nodes of many lanes: it keeps each record under its lane, and a
/// node reads and forgets only its lane's.
///
/// `SQLiteOutboxStore` (in SluiceSQLite) keeps the actions in a local SQLite file.
public protocol SharedOutboxStore: Sendable {
  /// Every record kept for `lane`, ordered by origin, then origin sequence.
  func keptRecords(of lane: String) async throws -> [SharedLogRecord]

  /// Keeps `records` for `lane` durably before returning; a record whose origin and origin
  /// sequence are kept already for `lane` stays as it is.
  func keep(_ records: [SharedLogRecord], for lane: String) async throws

  /// Forgets the records of `lane` from `origin` numbered up to `originSequence`: the log took
  /// them.
  func forget(origin: String, through originSequence: UInt64, of lane: String) async throws
}
