import Foundation
import Sluice

/// Writes a range of records as a Swift Testing file that replays it through `TestStore`.
struct TestFileWriter: Sendable {
  let export: TestExport
  let encoder: ValueEncoder
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
    let storesByID = Dictionary(uniqueKeysWithValues: snapshot.stores.map { ($0.id, $0.store) })
    var states = Fork.states(
      from: snapshot.base, through: snapshot.records.lazy.filter { $0.seq < from },
      stores: storesByID, skipping: skipping)
    let touched = snapshot.stores.filter { info in
      range.contains { $0.reducedBy.contains(info.id) || $0.statesAfter[info.id] != nil }
    }
    guard !touched.isEmpty else {
      throw InspectorError(.failed, "no store changed in records \(from) through \(through)")
    }
    var tests: [String] = []
    for info in touched {
      tests.append(try test(for: info, range: range, start: &states, from: from, through: through))
    }
    let imports =
      ["Foundation", "Sluice", "SluiceTesting", "Testing"].map { "import \($0)" }
      + export.imports.map { "@testable import \($0)" }
    let header = """
      // swift-format-ignore-file
      // Recorded by Sluice Inspector: records \(from) through \(through) of the lane \
      "\(TestFileWriter.commentSafe(lane))".
      // Each test starts a TestStore from a store's state before the range, sends the actions it
      // reduced, in order, and asserts the properties each one changed.

      """
    let source = header + imports.joined(separator: "\n") + "\n\n" + tests.joined(separator: "\n")
    return ("Recorded\(from)Through\(through)Tests.swift", source)
  }

  private func test(
    for info: InspectorStoreInfo, range: [InspectorRecord],
    start states: inout [String: any Sendable],
    from: UInt64, through: UInt64
  ) throws(InspectorError) -> String {
    guard var state = states[info.id] else {
      throw InspectorError(.failed, "the state of \(info.name) before record \(from) is not known")
    }
    try checkNotRedacted(state, of: info, at: from)
    let reducer = export.reducers[info.name] ?? "<#Reducer<\(info.name)>#>"
    var body = """
        let store = TestStore(
          initialState: \(try literal(state, what: "the state of \(info.name)", indent: 4)),
          reducer: \(reducer))

      """
    for record in range {
      if record.statesAfter[info.id] != nil {
        throw InspectorError(
          .failed,
          "record \(record.seq) (\(record.type)) is a \(record.kind.rawValue), which a test "
            + "cannot send; choose a range after it")
      }
      // The test store has no middleware: it is sent what the live store reduced.
      guard record.reducedBy.contains(info.id),
        let action = record.replacements[info.id] ?? record.action
      else { continue }
      var unlimited = encoder
      unlimited.maxNodes = .max
      unlimited.maxDepth = 64
      if unlimited.encodeAction(action).json.contains("‹redacted›") {
        throw InspectorError(
          .failed, "record \(record.seq) (\(record.type)) holds redacted values; it is not exported"
        )
      }
      guard let after = info.store.reduce(state, action) else { continue }
      try checkNotRedacted(after, of: info, at: record.seq)
      body +=
        "  // #\(record.seq) "
        + TestFileWriter.commentSafe("\(record.type)\(TestFileWriter.origin(record))") + "\n"
      let sent = try literal(action, what: "the action \(record.type)", indent: 2)
      let assignments = try changes(from: state, to: after, name: info.name)
      if assignments.isEmpty {
        body += "  await store.send(\(sent))\n"
      } else {
        body += "  await store.send(\(sent)) {\n"
        for assignment in assignments { body += "    \(assignment)\n" }
        body += "  }\n"
      }
      state = after
    }
    states[info.id] = state
    let name = TestFileWriter.functionName(info.name, from: from, through: through)
    return "@Test func \(name)() async {\n" + body + "}\n"
  }

  /// `$0.items = [...]` for each property that differs; `$0 = ...` for a state without
  /// properties.
  private func changes(from before: any Sendable, to after: any Sendable, name: String)
    throws(InspectorError) -> [String]
  {
    let old = Mirror(reflecting: before)
    let new = Mirror(reflecting: after)
    let labelled = new.displayStyle == .struct && new.children.allSatisfy { $0.label != nil }
    guard labelled, old.children.count == new.children.count else {
      let whole = try literal(after, what: "the state of \(name)", indent: 4)
      return try literal(before, what: "the state of \(name)", indent: 4) == whole
        ? [] : ["$0 = \(whole)"]
    }
    var lines: [String] = []
    for (left, right) in zip(old.children, new.children) {
      guard let label = right.label else { continue }
      let written = try literal(right.value, what: "\(name).\(label)", indent: 4)
      if try literal(left.value, what: "\(name).\(label)", indent: 4) != written {
        lines.append("$0.\(label) = \(written)")
      }
    }
    return lines
  }

  /// A test must not write out what the inspector never shows.
  private func checkNotRedacted(_ state: any Sendable, of info: InspectorStoreInfo, at seq: UInt64)
    throws(InspectorError)
  {
    // Without the encoder's limits: a truncated value could hide a redacted one.
    var unlimited = encoder
    unlimited.maxNodes = .max
    unlimited.maxDepth = 64
    guard unlimited.encodeState(state, storeName: info.name).json.contains("‹redacted›") else {
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
    case .effect(let parent, let effect)?: text += ", by the effect \(effect) of record \(parent)"
    case .lane(let parent, let store?)?:
      text += ", by an observer of \(store) during record \(parent)"
    case .lane(let parent, nil)?: text += ", on the lane during record \(parent)"
    case .outside?: text += ", from outside"
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
