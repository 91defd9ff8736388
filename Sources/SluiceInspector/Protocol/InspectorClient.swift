import Foundation
import Sluice

/// One connected client: what it paused, skipped and jumped to, and its commands.
///
/// Every message to the client goes through `send`, in order. Time travel happens in this
/// client's own fork: `jump` and `toggle` rebuild states from the recorder's base and never
/// touch a live store; only `apply` does, through the lane.
actor InspectorClient {
  private let recorder: Recorder
  private let redaction: Redaction
  private let lane: String
  private let testWriter: TestFileWriter
  private let replayer: Replayer
  private let send: @Sendable (String) -> Void
  private var paused = false
  /// The newest record the client has (in a snapshot or a `record`): an older one arriving
  /// late from the recorder is not sent again.
  private var newest: UInt64 = 0
  /// The stores the client knows, and how many records it knows the ring let go: after a
  /// snapshot, events older than it that were still on their way say nothing new.
  private var knownStores: Set<String> = []
  private var dropped = 0
  private var skipped: Set<UInt64> = []
  /// The record the last `jump` went to; `nil`: the newest.
  private var jumpedTo: UInt64?

  init(
    recorder: Recorder, redaction: Redaction, lane: String, testWriter: TestFileWriter,
    replayer: Replayer, send: @escaping @Sendable (String) -> Void
  ) {
    self.recorder = recorder
    self.redaction = redaction
    self.lane = lane
    self.testWriter = testWriter
    self.replayer = replayer
    self.send = send
  }

  /// The snapshot the client got when it connected.
  func connected(with snapshot: RecorderSnapshot) {
    took(snapshot)
  }

  private func took(_ snapshot: RecorderSnapshot) {
    newest = max(newest, snapshot.records.last?.seq ?? 0)
    knownStores.formUnion(snapshot.stores.map(\.id))
    dropped = max(dropped, snapshot.summary.dropped)
  }

  /// Passes an event from the recorder on, unless paused.
  func deliver(_ event: RecorderEvent) {
    guard !paused else { return }
    switch event {
    case .record(let record):
      guard record.seq > newest else { return }
      newest = record.seq
      let described = DescribedRecord(
        record: record, description: recorder.describer.describe(record))
      send(InspectorMessage.RecordAdded(record: described).jsonText)
    case .summary(let summary):
      guard summary.dropped > dropped else { return }
      dropped = summary.dropped
      send(InspectorMessage.SummaryChanged(summary: .init(summary)).jsonText)
    case .store(let info, let state):
      guard knownStores.insert(info.id).inserted else { return }
      send(
        InspectorMessage.StoreAdded(store: .init(info, state: redaction.encodeState(state)))
          .jsonText)
    case .resync:
      // Records were let go on the way here: the client starts over from what is kept now.
      let snapshot = recorder.snapshot()
      took(snapshot)
      send(InspectorMessage.snapshot(snapshot, redaction: redaction))
    }
  }

  /// Carries out one message from the client and sends its reply.
  func handle(_ text: String) async {
    let command: InspectorCommand
    switch InspectorCommand.parse(text) {
    case .success(let parsed): command = parsed
    case .failure(let failure):
      return send(InspectorMessage.error(failure.error.code, failure.error.message, id: failure.id))
    }
    do {
      try await carryOut(command.request, id: command.id)
    } catch {
      send(InspectorMessage.error(error.code, error.message, id: command.id))
    }
  }

  /// Sends the reply `type` to the command `id`, with the fields of `body`.
  private func reply(_ type: String, id: StateValue?, _ body: some Encodable) {
    send(InspectorMessage.Reply(type: type, id: id, body: body).jsonText)
  }

  private struct Paused: Encodable { let paused: Bool }
  private struct Applied: Encodable {
    let seq: UInt64
    let stores: [String]
  }
  private struct Detail: Encodable {
    struct Store: Encodable {
      let id: String
      let before: StateValue
      let after: StateValue
      let changes: [InspectorMessage.Change]
    }
    let seq: UInt64
    let record: DescribedRecord
    let stores: [Store]
  }
  private struct WhySteps: Encodable {
    let store: String
    let path: String
    let steps: [Why.Step]
  }
  private struct Observers: Encodable {
    struct Store: Encodable {
      let id: String
      let observers: [InspectorMessage.Observer]
    }
    let stores: [Store]
  }
  private struct Export: Encodable { let session: SessionExport }
  private struct TestFile: Encodable {
    let fileName: String
    let source: String
  }
  private struct States: Encodable {
    let seq: UInt64
    let stores: [InspectorMessage.StoreState]
    let skipped: [UInt64]
  }

  private func carryOut(_ request: InspectorCommand.Request, id: StateValue?)
    async throws(InspectorError)
  {
    switch request {
    case .ping: reply("pong", id: id, InspectorMessage.Empty())
    case .pause:
      paused = true
      reply("paused", id: id, Paused(paused: true))
    case .resume:
      paused = false
      // The page starts over from the new snapshot, and so does this client's fork.
      skipped = []
      jumpedTo = nil
      reply("paused", id: id, Paused(paused: false))
      let snapshot = recorder.snapshot()
      took(snapshot)
      send(InspectorMessage.snapshot(snapshot, redaction: redaction))
    case .jump(let seq):
      let snapshot = recorder.snapshot()
      try check(seq, in: snapshot)
      jumpedTo = seq
      try await sendStates(at: seq, snapshot: snapshot, id: id)
    case .toggle(let seq, let skip):
      let snapshot = recorder.snapshot()
      guard snapshot.records.contains(where: { $0.seq == seq }) else {
        throw InspectorError(.unknownRecord, "record \(seq) is not kept")
      }
      if skip { skipped.insert(seq) } else { skipped.remove(seq) }
      try await sendStates(
        at: jumpedTo ?? snapshot.records.last?.seq ?? 0, snapshot: snapshot, id: id)
    case .apply(let requested):
      let snapshot = recorder.snapshot()
      let seq = requested ?? jumpedTo ?? snapshot.records.last?.seq ?? 0
      try check(seq, in: snapshot)
      let states = try await fork(at: seq, snapshot: snapshot)
      let replacements = snapshot.stores.compactMap { info in
        states[info.number].map { (store: info.store, state: $0) }
      }
      let replaced: [any InspectedStore]
      do {
        replaced = try await Dispatcher.replaceInspectedStates(replacements)
      } catch {
        throw InspectorError(.failed, "not applied: \(error)")
      }
      let applied = snapshot.stores.filter { info in replaced.contains { $0 === info.store } }
        .map(\.id)
      guard applied.count == replacements.count else {
        throw InspectorError(
          .failed,
          "applied to \(applied.count) of \(replacements.count) stores: the others are gone")
      }
      reply("applied", id: id, Applied(seq: seq, stores: applied))
    case .detail(let seq):
      let snapshot = recorder.snapshot()
      guard let index = snapshot.records.firstIndex(where: { $0.seq == seq }) else {
        throw InspectorError(.unknownRecord, "record \(seq) is not kept")
      }
      let record = DescribedRecord(
        record: snapshot.records[index],
        description: recorder.describer.describe(snapshot.records[index]))
      let previous = index == 0 ? 0 : snapshot.records[index - 1].seq
      let before = try await fork(at: previous, snapshot: snapshot)
      let after = try await fork(at: seq, snapshot: snapshot)
      let stores = snapshot.stores.compactMap { info -> Detail.Store? in
        guard
          record.record.stores.contains(info.id)
            || record.changes.contains(where: { $0.store == info.id })
        else { return nil }
        return Detail.Store(
          id: info.id, before: before[info.number].map { redaction.encodeState($0) } ?? .null,
          after: after[info.number].map { redaction.encodeState($0) } ?? .null,
          changes: record.changes.filter { $0.store == info.id }.map {
            InspectorMessage.Change($0.change, store: $0.store)
          })
      }
      reply("detail", id: id, Detail(seq: seq, record: record, stores: stores))
    case .why(let store, let pathText):
      guard let path = InspectorPath(parsing: pathText) else {
        throw InspectorError(.badArgument, "\"\(pathText.prefix(64))\" is not a path")
      }
      let snapshot = recorder.snapshot()
      guard snapshot.stores.contains(where: { $0.id == store }) else {
        throw InspectorError(.badArgument, "no store \"\(store)\"")
      }
      let steps = Why.steps(store: store, path: path, records: snapshot.describedRecords)
      reply("why", id: id, WhySteps(store: store, path: path.description, steps: steps))
    case .observers:
      let snapshot = recorder.snapshot()
      var stores: [Observers.Store] = []
      for info in snapshot.stores {
        let observers = await info.store.observers()
        stores.append(.init(id: info.id, observers: observers.map(InspectorMessage.Observer.init)))
      }
      reply("observers", id: id, Observers(stores: stores))
    case .export:
      let snapshot = recorder.snapshot()
      reply(
        "export", id: id,
        Export(session: SessionExport(snapshot, lane: lane, redaction: redaction)))
    case .exportTest(let from, let through):
      let snapshot = recorder.snapshot()
      let file = try testWriter.file(
        from: from, through: through, snapshot: snapshot, skipping: skipped)
      reply("test", id: id, TestFile(fileName: file.name, source: file.source))
    }
  }

  private func check(_ seq: UInt64, in snapshot: RecorderSnapshot) throws(InspectorError) {
    guard seq == 0 || snapshot.records.contains(where: { $0.seq == seq }) else {
      throw InspectorError(.unknownRecord, "record \(seq) is not kept")
    }
  }

  /// The fork's states after record `seq` (0: the base), without this client's skipped records,
  /// replayed by the ``Replayer``.
  private func fork(
    at seq: UInt64, snapshot: RecorderSnapshot
  ) async throws(InspectorError) -> [Int: any Sendable] {
    let skipped = skipped
    guard
      let states = await replayer.run({
        Fork.states(
          from: snapshot.base, through: snapshot.records.lazy.filter { $0.seq <= seq },
          stores: Dictionary(uniqueKeysWithValues: snapshot.stores.map { ($0.number, $0.store) }),
          skipping: skipped)
      })
    else {
      throw InspectorError(
        .failed, "\(replayer.limit) replays wait already; try again when they are done")
    }
    return states
  }

  private func sendStates(
    at seq: UInt64, snapshot: RecorderSnapshot, id: StateValue?
  ) async throws(InspectorError) {
    let states = try await fork(at: seq, snapshot: snapshot)
    reply(
      "states", id: id,
      States(
        seq: seq,
        stores: InspectorMessage.StoreState.all(
          states, stores: snapshot.stores, redaction: redaction),
        skipped: skipped.sorted()))
  }
}
