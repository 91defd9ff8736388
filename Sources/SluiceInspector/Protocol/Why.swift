import Sluice

/// "Why did this update?": the records that changed a value, each with the chain of causes
/// that led to it.
enum Why {
  /// A record that changed the value, with the first of its changes there, how many it made
  /// there, and its chain of causes.
  struct Step: Encodable {
    let seq: UInt64
    let change: InspectorMessage.Change
    let changes: Int
    let chain: [UInt64]
  }

  /// The records (newest first) that changed `path` of `store`, or a value inside it, or the
  /// value it sits in; each with its change and its chain of causes back to an action
  /// dispatched from outside (or to the oldest record kept).
  static func steps(store: String, path: InspectorPath, records: [DescribedRecord]) -> [Step] {
    let bySeq = Dictionary(
      records.map { ($0.seq, $0.record) }, uniquingKeysWith: { first, _ in first })
    var steps: [Step] = []
    for record in records.reversed() {
      let relevant = record.description.changes.filter { change in
        change.store == store
          && (InspectorPath(change.change.path).isInside(path)
            || path.isInside(InspectorPath(change.change.path)))
      }
      guard let first = relevant.first else { continue }
      steps.append(
        Step(
          seq: record.seq, change: InspectorMessage.Change(first.change, store: store),
          changes: relevant.count, chain: chain(from: record.record, in: bySeq)))
    }
    return steps
  }

  /// The record's number, then its cause's, and so on while the cause is a kept record.
  static func chain(from record: InspectorRecord, in records: [UInt64: InspectorRecord])
    -> [UInt64]
  {
    var chain = [record.seq]
    var current = record
    while chain.count < 1_000 {
      let parent: UInt64
      switch current.origin?.cause {
      case .lane(let seq, _)?: parent = seq
      case .effect(let seq, _, _)?: parent = seq
      default: return chain
      }
      // A cause is always an earlier step; anything else would loop.
      guard parent < current.seq else { return chain }
      chain.append(parent)
      guard let next = records[parent] else { return chain }
      current = next
    }
    return chain
  }
}
