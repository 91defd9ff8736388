import Foundation
import PropertyBased
import Testing

/// Issue 16, "use it on ourselves": random scripts of dispatches (sync, async, `send`, from an
/// observer), transactions (committed, aborted, thrown), locks (`pause`, `release`,
/// `exclusive`), `reset` and Flask's capture/rollback written with transactions, over two stores on one dispatcher, checked after
/// every operation against ``ReferenceLane`` (S1, S6, S7, S8, S11, S12).
///
/// `SLUICE_PROPERTY_COUNT` sets the number of scripts (a soak:
/// `SLUICE_PROPERTY_COUNT=100000 swift test --filter SluiceSelfPropertyTests`).
@Suite struct SluiceSelfPropertyTests {
  /// Scripts per run: small enough for CI by default (about a second).
  static let count =
    ProcessInfo.processInfo.environment["SLUICE_PROPERTY_COUNT"].flatMap { Int($0) } ?? 500

  @Test func twoStoresOnOneLaneFollowTheReferenceModel() async {
    await propertyCheck(count: Self.count, input: LaneOperation.scripts) { script in
      let lane = TwinLane()
      var model = ReferenceLane()
      for (index, operation) in script.enumerated() {
        let command = operation.command(at: index)
        model.run(command)
        await lane.run(command)
        let differences = await lane.snapshot().differences(from: model.expected)
        guard differences.isEmpty else {
          // Stops at the first difference: the later ones follow from it.
          let report = differences.joined(separator: "\n")
          Issue.record("after operation #\(index), \(operation):\n\(report)")
          break
        }
      }
      await lane.close()
    }
  }
}
