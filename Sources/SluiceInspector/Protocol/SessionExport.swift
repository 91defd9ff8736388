/// An exported session: what the page downloads and can load again without a server.
enum SessionExport {
  /// The `format` field of every export.
  static let format = "sluice-inspector-session"

  static func session(_ snapshot: RecorderSnapshot, lane: String, encoder: ValueEncoder)
    -> InspectorValue
  {
    InspectorMessage.object([
      ("format", .string(format)),
      ("protocol", .number(Double(InspectorMessage.version))),
      ("lane", .string(lane)),
      ("stores", InspectorMessage.stores(snapshot)),
      ("base", InspectorMessage.base(snapshot, encoder: encoder)),
      ("records", .array(snapshot.records.map(InspectorMessage.record))),
      ("summary", InspectorMessage.summary(snapshot.summary)),
    ])
  }
}
