import Foundation
import Sluice

/// The server's side of the protocol (see <doc:InspectorProtocol>): every message it sends,
/// as JSON text.
enum InspectorMessage {
  /// The protocol's version.
  static let version = 1
  /// What the server can do, in `hello`.
  static let capabilities = [
    "jump", "toggle", "apply", "detail", "why", "observers", "export", "exportTest", "pause",
  ]

  static func hello(lane: String, capacity: Int) -> String {
    object([
      ("type", .string("hello")), ("protocol", .number(Double(version))),
      ("lane", .string(lane)), ("capacity", .number(Double(capacity))),
      ("capabilities", .array(capabilities.map(InspectorValue.string))),
    ]).json
  }

  static func snapshot(_ snapshot: RecorderSnapshot, encoder: ValueEncoder) -> String {
    object([
      ("type", .string("snapshot")),
      ("stores", stores(snapshot)),
      ("base", base(snapshot, encoder: encoder)),
      ("records", .array(snapshot.records.map(record))),
      ("summary", summary(snapshot.summary)),
    ]).json
  }

  static func record(_ record: InspectorRecord) -> String {
    object([("type", .string("record")), ("record", self.record(record))]).json
  }

  static func summaryMessage(_ summary: InspectorSummary) -> String {
    object([("type", .string("summary")), ("summary", self.summary(summary))]).json
  }

  /// A reply to the command `id`: its type, the id, then `fields`.
  static func reply(
    _ type: String, id: InspectorValue?, _ fields: [(String, InspectorValue)] = []
  ) -> String {
    object([("type", .string(type)), ("id", id ?? .null)] + fields).json
  }

  static func error(_ code: InspectorError.Code, _ message: String, id: InspectorValue?) -> String {
    reply("error", id: id, [("code", .string(code.rawValue)), ("message", .string(message))])
  }

  // MARK: - Parts

  static func object(_ fields: [(String, InspectorValue)]) -> InspectorValue {
    .object(fields.map { InspectorValue.Field($0.0, $0.1) })
  }

  static func stores(_ snapshot: RecorderSnapshot) -> InspectorValue {
    .array(
      snapshot.stores.map { info in
        object([
          ("id", .string(info.id)), ("name", .string(info.name)),
          ("state", snapshot.latest[info.id] ?? .null),
        ])
      })
  }

  static func base(_ snapshot: RecorderSnapshot, encoder: ValueEncoder) -> InspectorValue {
    states(snapshot.base, stores: snapshot.stores, encoder: encoder)
  }

  /// `[{"id", "state"}…]` for `states`, in the stores' order.
  static func states(
    _ states: [String: any Sendable], stores: [InspectorStoreInfo], encoder: ValueEncoder
  ) -> InspectorValue {
    .array(
      stores.compactMap { info in
        guard let state = states[info.id] else { return nil }
        return object([
          ("id", .string(info.id)),
          ("state", encoder.encodeState(state, storeName: info.name)),
        ])
      })
  }

  static func summary(_ summary: InspectorSummary) -> InspectorValue {
    object([
      ("dropped", .number(Double(summary.dropped))),
      (
        "byType",
        .dictionary(
          summary.byType.sorted { $0.key < $1.key }.map {
            InspectorValue.Field($0.key, .number(Double($0.value)))
          })
      ),
    ])
  }

  static func record(_ record: InspectorRecord) -> InspectorValue {
    object([
      ("seq", .number(Double(record.seq))),
      ("kind", .string(record.kind.rawValue)),
      ("action", object([("type", .string(record.type)), ("payload", record.payload)])),
      ("stores", .array(record.stores.map(InspectorValue.string))),
      ("changes", .array(record.changes.map { change($0.change, store: $0.store) })),
      ("durationMicros", .number(Double(record.durationMicros))),
      ("time", .string(record.time.formatted(.iso8601))),
      ("site", site(record.origin?.site)),
      ("cause", cause(record.origin?.cause)),
    ])
  }

  static func change(_ change: InspectorChange, store: String) -> InspectorValue {
    var fields: [(String, InspectorValue)] = [
      ("store", .string(store)), ("path", .string(change.path.description)),
    ]
    if let old = change.old { fields.append(("old", old)) }
    if let new = change.new { fields.append(("new", new)) }
    return object(fields)
  }

  /// `{"kind", "keyPath", "path", "count"}`: `path` is where "why" looks (`""`: the whole
  /// state; `null`: the observer reads computed values, so any change may move it).
  static func observer(_ observer: InspectedObserver) -> InspectorValue {
    object([
      ("kind", .string(observer.kind.rawValue)),
      ("keyPath", observer.keyPath.map(InspectorValue.string) ?? .null),
      ("path", observer.path.map(InspectorValue.string) ?? .null),
      ("count", .number(Double(observer.count))),
    ])
  }

  static func site(_ site: DispatchSite?) -> InspectorValue {
    guard let site else { return .null }
    return object([("file", .string(site.file)), ("line", .number(Double(site.line)))])
  }

  static func cause(_ cause: DispatchCause?) -> InspectorValue {
    switch cause {
    case nil: object([("kind", .string("unknown"))])
    case .outside: object([("kind", .string("outside"))])
    case .lane(let parent, let store):
      object(
        [("kind", .string("lane")), ("parent", .number(Double(parent)))]
          + (store.map { [("observerOf", InspectorValue.string($0))] } ?? []))
    case .effect(let parent, let effect):
      object([
        ("kind", .string("effect")), ("parent", .number(Double(parent))),
        ("effect", .string(effect)),
      ])
    }
  }
}
