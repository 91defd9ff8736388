import Foundation
import Sluice

/// Writes a range of records as a Swift Testing file that replays it through `TestStore`.
struct TestFileWriter: Sendable {
  let export: TestExport
  let redaction: Redaction
  let lane: String

  /// The file for records `from` through `through` (both kept), leaving out `skipping`.
  func file(
    from: UInt64, through: UInt64, snapshot: RecorderSnapshot, skipping: Set<UInt64> = []
  ) throws(InspectorError) -> (name: String, source: String) {
    guard from <= through else {
      throw InspectorError(.badArgument, "\"from\" (\(from)) is after \"through\" (\(through))")
    }
    for seq in [from, through] where !snapshot.records.contains(where: { $0.seq == seq }) {
      throw InspectorError(.unknownRecord, "record \(seq) is not kept")
    }
    let range = snapshot.records.filter {
      $0.seq >= from && $0.seq <= through && !skipping.contains($0.seq)
    }
    let storesByID = Dictionary(
      uniqueKeysWithValues: snapshot.stores.map { ($0.number, $0.store) })
    var states = Fork.states(
      from: snapshot.base, through: snapshot.records.lazy.filter { $0.seq < from },
      stores: storesByID, skipping: skipping)
    let touched = snapshot.stores.filter { info in
      range.contains { $0.reduced(by: info.number) || $0.setsState(of: info.number) }
    }
    guard !touched.isEmpty else {
      throw InspectorError(.failed, "no store changed in records \(from) through \(through)")
    }
    let skipped = snapshot.records.filter {
      $0.seq >= from && $0.seq <= through && skipping.contains($0.seq)
    }
    var tests: [String] = []
    for info in touched {
      tests.append(
        try test(
          for: info, range: range, start: &states,
          span: Span(
            from: from, through: through,
            later: snapshot.records.filter { $0.seq > through }, skipped: skipped)))
    }
    let leftOut = skipped.map { "#\($0.seq) \(TestFileWriter.commentSafe($0.type))" }
    let imports =
      ["Foundation", "Sluice", "SluiceTesting", "Testing"].map { "import \($0)" }
      + export.imports.map { "@testable import \($0)" }
    let header = """
      // swift-format-ignore-file
      // Recorded by Sluice Inspector: records \(from) through \(through) of the lane \
      "\(TestFileWriter.commentSafe(lane))".
      // Each test starts a TestStore from a store's state before the range, sends the actions it
      // reduced, in order (receiving those its effects dispatched, where the test runs them), and
      // asserts the properties each one changed.

      """
      + (leftOut.isEmpty
        ? ""
        : "// Left out, as skipped in the inspector: \(leftOut.joined(separator: ", ")).\n\n")
    let source = header + imports.joined(separator: "\n") + "\n\n" + tests.joined(separator: "\n")
    return ("Recorded\(from)Through\(through)Tests.swift", source)
  }

  /// The range a file replays, and what the recorder holds around it.
  private struct Span {
    let from: UInt64
    let through: UInt64
    /// The records kept after `through`.
    let later: [InspectorRecord]
    /// The records of the range the fork leaves out.
    let skipped: [InspectorRecord]
  }

  private func test(
    for info: InspectorStoreInfo, range: [InspectorRecord],
    start states: inout [Int: any Sendable],
    span: Span
  ) throws(InspectorError) -> String {
    guard var state = states[info.number] else {
      throw InspectorError(
        .failed, "the state of \(info.name) before record \(span.from) is not known")
    }
    try checkNotRedacted(state, of: info, at: span.from)
    let reducer = export.reducers[info.name] ?? "<#Reducer<\(info.name)>#>"
    let effects = export.effects[info.name]
    var body = """
        let store = TestStore(
          initialState: \(try literal(state, what: "the state of \(info.name)", indent: 4)),
          reducer: \(reducer)\(effects.map { ",\n    effects: \($0)" } ?? ""))

      """
    // The records this test sends or receives: with effects, what their effects dispatched is
    // received, not sent.
    var written: Set<UInt64> = []
    for record in range {
      if record.setsState(of: info.number) {
        throw InspectorError(
          .failed,
          "record \(record.seq) (\(record.type)) is a \(record.kind.rawValue), which a test "
            + "cannot send; choose a range after it")
      }
      // What an effect of an action this test sent dispatched, the test store's effects
      // dispatch too: it receives every one, also those its reducer does not handle.
      let received =
        effects != nil && TestFileWriter.isDispatched(record, byEffectsOf: written, of: info)
      // The test store has no middleware: it is sent what the live store reduced.
      guard received || record.reduced(by: info.number),
        let action = received
          ? record.action : record.replacement(for: info.number) ?? record.action
      else { continue }
      if received, record.replacement(for: info.number) != nil {
        throw InspectorError(
          .failed,
          "record \(record.seq) (\(record.type)), dispatched by an effect, was replaced by "
            + "\(info.name)'s middleware, which a test store does not run; choose a range "
            + "without it, or leave out \(info.name)'s effects")
      }
      if redaction.encodeAction(action, unlimited: true).jsonText.contains("‹redacted›") {
        throw InspectorError(
          .failed, "record \(record.seq) (\(record.type)) holds redacted values; it is not exported"
        )
      }
      guard let after = info.store.reduce(state, action) ?? (received ? state : nil) else {
        continue
      }
      try checkNotRedacted(after, of: info, at: record.seq)
      body +=
        "  // #\(record.seq) "
        + TestFileWriter.commentSafe("\(record.type)\(TestFileWriter.origin(record))") + "\n"
      let call: String
      if received {
        // By value when the action can be compared, else by type.
        let expected =
          (action as Any) is any Equatable
          ? try literal(action, what: "the action \(record.type)", indent: 2)
          : try typeName(of: action, what: record.type) + ".self"
        call = "await store.receive(\(expected))"
      } else {
        call =
          "await store.send(\(try literal(action, what: "the action \(record.type)", indent: 2)))"
      }
      let assignments = try changes(from: state, to: after, name: info.name)
      if assignments.isEmpty {
        body += "  \(call)\n"
      } else {
        body += "  \(call) {\n"
        for assignment in assignments { body += "    \(assignment)\n" }
        body += "  }\n"
      }
      written.insert(record.seq)
      state = after
    }
    if effects != nil, !written.isEmpty {
      body += try ending(of: info, written: written, span: span)
    }
    states[info.number] = state
    let name = TestFileWriter.functionName(info.name, from: span.from, through: span.through)
    return "@Test func \(name)() async {\n" + body + "}\n"
  }

  /// How a test that runs its store's effects ends: it waits for them to end and fails for
  /// what they dispatch unasserted, unless the recording shows them going on after the range.
  private func ending(of info: InspectorStoreInfo, written: Set<UInt64>, span: Span)
    throws(InspectorError) -> String
  {
    // The test's effects dispatch what the fork leaves out all the same.
    if let left = span.skipped.first(where: {
      TestFileWriter.isDispatched($0, byEffectsOf: written, of: info)
    }) {
      throw InspectorError(
        .failed,
        "record \(left.seq) (\(left.type)) is left out, but an effect of the range dispatched "
          + "it, which \(info.name)'s effects in a test would do too; turn it back on, or leave "
          + "out \(info.name)'s effects")
    }
    let goesOn = span.later.contains {
      TestFileWriter.isDispatched($0, byEffectsOf: written, of: info)
    }
    guard goesOn else { return "  await store.finish()\n" }
    return """
        // The range ends while effects it started go on: what they do next is not part of this
        // test.
        store.exhaustivity = .off

      """
  }

  /// Whether an effect of `store`, started by one of the records `parents`, dispatched
  /// `record` (an effect of another store's does not run in `store`'s test).
  private static func isDispatched(
    _ record: InspectorRecord, byEffectsOf parents: Set<UInt64>, of store: InspectorStoreInfo
  ) -> Bool {
    guard case .effect(let parent, _, _)? = record.origin?.cause else { return false }
    return parents.contains(parent) && (record.effectStore ?? store.id) == store.id
  }

  private func typeName(of value: Any, what: String) throws(InspectorError) -> String {
    do {
      return try SwiftLiteral.typeName(of: value)
    } catch {
      throw InspectorError(.failed, "the action \(what) cannot be written as Swift: \(error.what)")
    }
  }

  /// `$0.items = [...]` for each property that differs; `$0 = ...` for a state without
  /// properties.
  private func changes(from before: any Sendable, to after: any Sendable, name: String)
    throws(InspectorError) -> [String]
  {
    do {
      return try SwiftLiteral.assignments(from: before, to: after, indent: 4)
    } catch {
      throw InspectorError(
        .failed, "the state of \(name) cannot be written as Swift: \(error.what)")
    }
  }

  /// A test must not write out what the inspector never shows.
  private func checkNotRedacted(_ state: any Sendable, of info: InspectorStoreInfo, at seq: UInt64)
    throws(InspectorError)
  {
    guard
      redaction.encodeState(state, unlimited: true).jsonText.contains(
        "‹redacted›")
    else {
      return
    }
    throw InspectorError(
      .failed,
      "the state of \(info.name) at record \(seq) holds redacted values; it is not exported")
  }

  private func literal(_ value: Any, what: String, indent: Int = 0) throws(InspectorError)
    -> String
  {
    do {
      return try SwiftLiteral.source(of: value, indent: indent)
    } catch {
      throw InspectorError(.failed, "\(what) cannot be written as Swift: \(error.what)")
    }
  }

  /// `text` on one line, for a `//` comment of the generated file.
  private static func commentSafe(_ text: String) -> String {
    String(text.map { $0.isNewline ? " " : $0 })
  }

  private static func origin(_ record: InspectorRecord) -> String {
    var text = ""
    if let site = record.origin?.site { text += ", dispatched at \(site.file):\(site.line)" }
    switch record.origin?.cause {
    case .effect(let parent, let effect, _)?:
      text += ", by the effect \(effect) of record \(parent)"
    case .lane(let parent, let store?)?:
      text += ", by an observer of \(store) during record \(parent)"
    case .lane(let parent, nil)?: text += ", on the lane during record \(parent)"
    case .outside?: text += ", from outside"
    case .log(let node)?: text += ", from node \(node)'s log entry"
    case nil: break
    }
    return text
  }

  private static func functionName(_ type: String, from: UInt64, through: UInt64) -> String {
    let letters = type.filter { $0.isLetter || $0.isNumber }
    let head = letters.prefix(1).lowercased() + letters.dropFirst()
    return (head.isEmpty ? "store" : head) + "ReplaysRecords\(from)Through\(through)"
  }
}
