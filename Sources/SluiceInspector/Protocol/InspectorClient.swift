import Foundation
import Sluice

/// One connected client: what it paused, skipped and jumped to, and its commands.
///
/// Every message to the client goes through `send`, in order. Time travel happens in this
/// client's own fork: `jump` and `toggle` rebuild states from the recorder's base and never
/// touch a live store; only `apply` does, through the lane.
actor InspectorClient {
  private let recorder: Recorder
  private let encoder: ValueEncoder
  private let lane: String
  private let testWriter: TestFileWriter
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
    recorder: Recorder, encoder: ValueEncoder, lane: String, testWriter: TestFileWriter,
    send: @escaping @Sendable (String) -> Void
  ) {
    self.recorder = recorder
    self.encoder = encoder
    self.lane = lane
    self.testWriter = testWriter
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
      send(InspectorMessage.record(record))
    case .summary(let summary):
      guard summary.dropped > dropped else { return }
      dropped = summary.dropped
      send(InspectorMessage.summaryMessage(summary))
    case .store(let info, let state):
      guard knownStores.insert(info.id).inserted else { return }
      send(
        InspectorMessage.object([
          ("type", .string("store")),
          (
            "store",
            InspectorMessage.object([
              ("id", .string(info.id)), ("name", .string(info.name)), ("state", state),
            ])
          ),
        ]).json)
    case .resync:
      // Records were let go on the way here: the client starts over from what is kept now.
      let snapshot = recorder.snapshot()
      took(snapshot)
      send(InspectorMessage.snapshot(snapshot, encoder: encoder))
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
      try await carryOut(command)
    } catch {
      send(InspectorMessage.error(error.code, error.message, id: command.id))
    }
  }

  private func carryOut(_ command: InspectorCommand) async throws(InspectorError) {
    let id = command.id
    switch command.name {
    case .ping: send(InspectorMessage.reply("pong", id: id))
    case .pause:
      paused = true
      send(InspectorMessage.reply("paused", id: id, [("paused", .bool(true))]))
    case .resume:
      paused = false
      // The page starts over from the new snapshot, and so does this client's fork.
      skipped = []
      jumpedTo = nil
      send(InspectorMessage.reply("paused", id: id, [("paused", .bool(false))]))
      let snapshot = recorder.snapshot()
      took(snapshot)
      send(InspectorMessage.snapshot(snapshot, encoder: encoder))
    case .jump:
      let seq = try command.seq("seq")
      let snapshot = recorder.snapshot()
      try check(seq, in: snapshot)
      jumpedTo = seq
      sendStates(at: seq, snapshot: snapshot, id: id)
    case .toggle:
      let seq = try command.seq("seq")
      let skip = try command.bool("skip")
      let snapshot = recorder.snapshot()
      guard snapshot.records.contains(where: { $0.seq == seq }) else {
        throw InspectorError(.unknownRecord, "record \(seq) is not kept")
      }
      if skip { skipped.insert(seq) } else { skipped.remove(seq) }
      sendStates(at: jumpedTo ?? snapshot.records.last?.seq ?? 0, snapshot: snapshot, id: id)
    case .apply:
      let snapshot = recorder.snapshot()
      let seq = try command.optionalSeq("seq") ?? jumpedTo ?? snapshot.records.last?.seq ?? 0
      try check(seq, in: snapshot)
      let states = fork(at: seq, snapshot: snapshot)
      let replacements = snapshot.stores.compactMap { info in
        states[info.id].map { (store: info.store, state: $0) }
      }
      let replaced: [any InspectedStore]
      do {
        replaced = try await Dispatcher.replaceInspectedStates(replacements)
      } catch {
        throw InspectorError(.failed, "not applied: \(error)")
      }
      let applied = snapshot.stores.filter { info in replaced.contains { $0 === info.store } }
        .map { InspectorValue.string($0.id) }
      guard applied.count == replacements.count else {
        throw InspectorError(
          .failed,
          "applied to \(applied.count) of \(replacements.count) stores: the others are gone")
      }
      send(
        InspectorMessage.reply(
          "applied", id: id, [("seq", .number(Double(seq))), ("stores", .array(applied))]))
    case .detail:
      let seq = try command.seq("seq")
      let snapshot = recorder.snapshot()
      guard let index = snapshot.records.firstIndex(where: { $0.seq == seq }) else {
        throw InspectorError(.unknownRecord, "record \(seq) is not kept")
      }
      let record = snapshot.records[index]
      let previous = index == 0 ? 0 : snapshot.records[index - 1].seq
      let before = fork(at: previous, snapshot: snapshot)
      let after = fork(at: seq, snapshot: snapshot)
      let stores: [InspectorValue] = snapshot.stores.compactMap { info in
        guard
          record.stores.contains(info.id) || record.changes.contains(where: { $0.store == info.id })
        else { return nil }
        return InspectorMessage.object([
          ("id", .string(info.id)),
          (
            "before", before[info.id].map { encoder.encodeState($0, storeName: info.name) } ?? .null
          ),
          ("after", after[info.id].map { encoder.encodeState($0, storeName: info.name) } ?? .null),
          (
            "changes",
            .array(
              record.changes.filter { $0.store == info.id }.map {
                InspectorMessage.change($0.change, store: $0.store)
              })
          ),
        ])
      }
      send(
        InspectorMessage.reply(
          "detail", id: id,
          [
            ("seq", .number(Double(seq))), ("record", InspectorMessage.record(record)),
            ("stores", .array(stores)),
          ]))
    case .why:
      let store = try command.string("store", limit: 64)
      let pathText = try command.string("path")
      guard let path = InspectorPath(parsing: pathText) else {
        throw InspectorError(.badArgument, "\"\(pathText.prefix(64))\" is not a path")
      }
      let snapshot = recorder.snapshot()
      guard snapshot.stores.contains(where: { $0.id == store }) else {
        throw InspectorError(.badArgument, "no store \"\(store)\"")
      }
      send(
        InspectorMessage.reply(
          "why", id: id,
          [
            ("store", .string(store)), ("path", .string(path.description)),
            ("steps", Why.steps(store: store, path: path, records: snapshot.records)),
          ]))
    case .observers:
      let snapshot = recorder.snapshot()
      var stores: [InspectorValue] = []
      for info in snapshot.stores {
        let observers = await info.store.observers()
        stores.append(
          InspectorMessage.object([
            ("id", .string(info.id)),
            ("observers", .array(observers.map(InspectorMessage.observer))),
          ]))
      }
      send(InspectorMessage.reply("observers", id: id, [("stores", .array(stores))]))
    case .export:
      let snapshot = recorder.snapshot()
      send(
        InspectorMessage.reply(
          "export", id: id,
          [("session", SessionExport.session(snapshot, lane: lane, encoder: encoder))]))
    case .exportTest:
      let from = try command.seq("from")
      let through = try command.seq("through")
      let snapshot = recorder.snapshot()
      let file = try testWriter.file(
        from: from, through: through, snapshot: snapshot, skipping: skipped)
      send(
        InspectorMessage.reply(
          "test", id: id, [("fileName", .string(file.name)), ("source", .string(file.source))]))
    }
  }

  private func check(_ seq: UInt64, in snapshot: RecorderSnapshot) throws(InspectorError) {
    guard seq == 0 || snapshot.records.contains(where: { $0.seq == seq }) else {
      throw InspectorError(.unknownRecord, "record \(seq) is not kept")
    }
  }

  /// The fork's states after record `seq` (0: the base), without this client's skipped records.
  private func fork(at seq: UInt64, snapshot: RecorderSnapshot) -> [String: any Sendable] {
    Fork.states(
      from: snapshot.base, through: snapshot.records.lazy.filter { $0.seq <= seq },
      stores: Dictionary(uniqueKeysWithValues: snapshot.stores.map { ($0.id, $0.store) }),
      skipping: skipped)
  }

  private func sendStates(at seq: UInt64, snapshot: RecorderSnapshot, id: InspectorValue?) {
    let states = fork(at: seq, snapshot: snapshot)
    send(
      InspectorMessage.reply(
        "states", id: id,
        [
          ("seq", .number(Double(seq))),
          ("stores", InspectorMessage.states(states, stores: snapshot.stores, encoder: encoder)),
          ("skipped", .array(skipped.sorted().map { .number(Double($0)) })),
        ]))
  }
}
