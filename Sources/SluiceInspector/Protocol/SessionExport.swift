import Sluice

/// An exported session: what the page downloads and can load again without a server.
struct SessionExport: Encodable {
  /// The same in every export.
  let format = "sluice-inspector-session"
  let `protocol` = InspectorMessage.version
  let lane: String
  let stores: [InspectorMessage.Store]
  let base: [InspectorMessage.StoreState]
  let records: [DescribedRecord]
  let summary: InspectorMessage.Summary

  init(_ snapshot: RecorderSnapshot, lane: String, redaction: Redaction) {
    self.lane = lane
    let messages = InspectorMessage.Snapshot(snapshot, redaction: redaction)
    (stores, base, records, summary) = (
      messages.stores, messages.base, messages.records, messages.summary
    )
  }
}
