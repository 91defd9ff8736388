import Sluice

/// Everything the recorder holds at one moment, taken under its lock in one piece.
struct RecorderSnapshot: Sendable {
  let stores: [InspectorStoreInfo]
  /// Each store's state before the oldest record kept (by store number).
  let base: [Int: any Sendable]
  /// The records kept, oldest first.
  let records: [InspectorRecord]
  let summary: InspectorSummary
  /// Describes the records (their payloads and changes), off the lane.
  let describer: RecordDescriber

  /// Each store's state after the newest record (by store number): the base, moved through
  /// the states the records kept.
  var latest: [Int: any Sendable] {
    var states = base
    for record in records {
      for entry in record.entries where entry.changes && states[entry.store] != nil {
        states[entry.store] = entry.after
      }
    }
    return states
  }

  /// The records kept, each with its description.
  var describedRecords: [DescribedRecord] { describer.describe(records) }
}
