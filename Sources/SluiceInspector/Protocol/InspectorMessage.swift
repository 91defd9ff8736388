import Foundation
import Sluice

/// The server's side of the protocol (see <doc:InspectorProtocol>): every message it sends is
/// one of these `Encodable` types, written by `JSONEncoder` as compact JSON text, keys sorted.
enum InspectorMessage {
  /// The protocol's version.
  static let version = 1
  /// What the server can do, in `hello`.
  static let capabilities = [
    "jump", "toggle", "apply", "detail", "why", "observers", "export", "exportTest", "pause",
  ]

  static func hello(lane: String, capacity: Int) -> String {
    Hello(lane: lane, capacity: capacity).jsonText
  }

  static func snapshot(_ snapshot: RecorderSnapshot, redaction: Redaction) -> String {
    Snapshot(snapshot, redaction: redaction).jsonText
  }

  static func error(_ code: InspectorError.Code, _ message: String, id: StateValue?) -> String {
    Reply(type: "error", id: id, body: Failure(code: code.rawValue, message: message)).jsonText
  }

  struct Hello: Encodable {
    let type = "hello"
    let `protocol` = version
    let lane: String
    let capacity: Int
    let capabilities = InspectorMessage.capabilities
  }

  struct Snapshot: Encodable {
    let type = "snapshot"
    let stores: [Store]
    let base: [StoreState]
    let records: [DescribedRecord]
    let summary: Summary

    init(_ snapshot: RecorderSnapshot, redaction: Redaction) {
      let latest = snapshot.latest
      stores = snapshot.stores.map { info in
        Store(info, state: latest[info.number].map { redaction.encodeState($0) } ?? .null)
      }
      base = StoreState.all(snapshot.base, stores: snapshot.stores, redaction: redaction)
      records = snapshot.describedRecords
      summary = Summary(snapshot.summary)
    }
  }

  /// A record the recorder made after the client's snapshot.
  struct RecordAdded: Encodable {
    let type = "record"
    let record: DescribedRecord
  }

  /// How many records the ring let go, by type.
  struct SummaryChanged: Encodable {
    let type = "summary"
    let summary: Summary
  }

  /// A store the lane met after the client's snapshot.
  struct StoreAdded: Encodable {
    let type = "store"
    let store: Store
  }

  /// A reply to the command `id` (`null` when it gave none): its `type`, the id, then the
  /// fields of `body`.
  struct Reply<Body: Encodable>: Encodable {
    let type: String
    let id: StateValue?
    let body: Body

    private enum Key: String, CodingKey { case type, id }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(type, forKey: .type)
      try container.encode(id ?? .null, forKey: .id)
      try body.encode(to: encoder)
    }
  }

  /// The body of a reply without fields.
  struct Empty: Encodable {}

  /// The body of an `error` reply.
  struct Failure: Encodable {
    let code: String
    let message: String
  }

  // MARK: - Parts

  /// `{"id", "name", "state"}`: a store and its newest state.
  struct Store: Encodable {
    let id: String
    let name: String
    let state: StateValue

    init(_ info: InspectorStoreInfo, state: StateValue) {
      id = info.id
      name = info.name
      self.state = state
    }
  }

  /// `{"id", "state"}`: a store's state at some point.
  struct StoreState: Encodable {
    let id: String
    let state: StateValue

    /// `states`, redacted, in the stores' order.
    static func all(
      _ states: [Int: any Sendable], stores: [InspectorStoreInfo], redaction: Redaction
    ) -> [StoreState] {
      stores.compactMap { info in
        states[info.number].map { StoreState(id: info.id, state: redaction.encodeState($0)) }
      }
    }
  }

  struct Summary: Encodable {
    let dropped: Int
    let byType: [String: Int]

    init(_ summary: InspectorSummary) {
      dropped = summary.dropped
      byType = summary.byType
    }
  }

  /// `{"store", "path", "old", "new"}`: `old` is left out for a part that appeared, `new` for
  /// one that went.
  struct Change: Encodable {
    let store: String
    let path: String
    let old: StateValue?
    let new: StateValue?

    init(_ change: StateValueChange, store: String) {
      self.store = store
      path = InspectorPath(change.path).description
      old = change.old
      new = change.new
    }
  }

  /// `{"kind", "keyPath", "path", "count"}`: `path` is where "why" looks (`""`: the whole
  /// state; `null`: the observer reads computed values, so any change may move it).
  struct Observer: Encodable {
    let kind: String
    @Null var keyPath: String?
    @Null var path: String?
    let count: Int

    init(_ observer: InspectedObserver) {
      kind = observer.kind.rawValue
      keyPath = observer.keyPath
      path = observer.path
      count = observer.count
    }
  }
}

/// An optional part a message writes `null` when it has no value, rather than leaving it out.
@propertyWrapper
struct Null<Value: Encodable>: Encodable {
  var wrappedValue: Value?

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}

/// A record as the protocol writes it: `{"seq", "kind", "action": {"type", "payload"},
/// "stores", "changes", "durationMicros", "time", "site", "cause"}`. `site` is `null` when
/// unknown; the cause says why the action was dispatched, and an effect's cause names its
/// store's id (`null` when the effect was not a store's), a log entry's the node that sent it.
extension DescribedRecord: Encodable {
  private enum Key: String, CodingKey {
    case seq, kind, action, stores, changes, durationMicros, time, site, cause
    case type, payload, file, line, parent, observerOf, effect, store, node
  }

  func encode(to encoder: any Encoder) throws {
    var fields = encoder.container(keyedBy: Key.self)
    try fields.encode(record.seq, forKey: .seq)
    try fields.encode(record.kind.rawValue, forKey: .kind)
    var action = fields.nestedContainer(keyedBy: Key.self, forKey: .action)
    try action.encode(record.type, forKey: .type)
    try action.encode(description.payload, forKey: .payload)
    try fields.encode(record.stores, forKey: .stores)
    let changes = description.changes.map { InspectorMessage.Change($0.change, store: $0.store) }
    try fields.encode(changes, forKey: .changes)
    try fields.encode(record.durationMicros, forKey: .durationMicros)
    try fields.encode(record.time.formatted(.iso8601), forKey: .time)
    let origin = record.origin
    if let site = origin?.site {
      var nested = fields.nestedContainer(keyedBy: Key.self, forKey: .site)
      try nested.encode(site.file, forKey: .file)
      try nested.encode(site.line, forKey: .line)
    } else {
      try fields.encodeNil(forKey: .site)
    }
    var cause = fields.nestedContainer(keyedBy: Key.self, forKey: .cause)
    switch origin?.cause {
    case nil: try cause.encode("unknown", forKey: .kind)
    case .outside: try cause.encode("outside", forKey: .kind)
    case .lane(let parent, let store):
      try cause.encode("lane", forKey: .kind)
      try cause.encode(parent, forKey: .parent)
      try cause.encodeIfPresent(store, forKey: .observerOf)
    case .effect(let parent, let effect, _):
      try cause.encode("effect", forKey: .kind)
      try cause.encode(parent, forKey: .parent)
      try cause.encode(effect, forKey: .effect)
      try cause.encode(record.effectStore, forKey: .store)  // `null` when nil
    case .log(let node):
      try cause.encode("log", forKey: .kind)
      try cause.encode(node, forKey: .node)
    }
  }
}
