import Sluice

/// What a record says on the page: its action's payload and the changes it made, redacted.
struct RecordDescription: Sendable {
  /// One store's change in a step.
  struct StoreChange: Sendable {
    /// The store's id in the protocol (`s1`, `s2`, …).
    var store: String
    var change: StateValueChange
  }

  let payload: StateValue
  let changes: [StoreChange]
}

/// Works out what records say (``RecordDescription``) off the lane, when a reader (a page, an
/// export, "why", a detail) asks, and keeps the newest ones: several pages, or one page's
/// snapshot then its detail, read the same records.
final class RecordDescriber: Sendable {
  let redaction: Redaction
  /// How many descriptions are kept (at least the ring's capacity).
  private let limit: Int
  private let cache = Guarded([UInt64: RecordDescription]())

  init(redaction: Redaction, capacity: Int) {
    self.redaction = redaction
    limit = max(1, capacity)
  }

  /// `record`'s description, worked out once.
  func describe(_ record: InspectorRecord) -> RecordDescription {
    if let kept = cache.withLock({ $0[record.seq] }) { return kept }
    let description = work(out: record)
    // The encoded values are the inspector's own (no user value is released here).
    cache.withLock { cache in
      cache[record.seq] = description
      guard cache.count > limit * 2 else { return }
      let oldest = record.seq > UInt64(limit) ? record.seq - UInt64(limit) : 0
      cache = cache.filter { $0.key >= oldest }
    }
    return description
  }

  /// `records`, each with its description.
  func describe(_ records: [InspectorRecord]) -> [DescribedRecord] {
    records.map { DescribedRecord(record: $0, description: describe($0)) }
  }

  private func work(out record: InspectorRecord) -> RecordDescription {
    let payload = record.action.map { redaction.encodeAction($0) } ?? .null
    var changes: [RecordDescription.StoreChange] = []
    for entry in record.entries where entry.changes {
      let store = InspectorStoreInfo.protocolID(entry.store)
      let old = redaction.encodeState(entry.before)
      let new = redaction.encodeState(entry.after)
      for change in StateValueChange.between(old, new) {
        changes.append(RecordDescription.StoreChange(store: store, change: change))
      }
    }
    return RecordDescription(payload: payload, changes: changes)
  }
}

/// A record with its description: what the protocol writes.
struct DescribedRecord: Sendable {
  let record: InspectorRecord
  let description: RecordDescription

  var seq: UInt64 { record.seq }
  var changes: [RecordDescription.StoreChange] { description.changes }
}
