/// Everything the self-property tests compare between the real lane and the reference model
/// once a command was run (and, unless the lane is paused, once the lane is idle).
struct LaneSnapshot: Equatable, Sendable {
  /// What an observer of a ``TwinLane`` store recorded.
  enum Event: Hashable, Sendable, CustomStringConvertible {
    /// A whole-state observer (0 or 1, in registration order) received a state.
    case whole(observer: Int, TwinState)
    /// The `\.level` observer received a change.
    case level(old: Int, new: Int)

    var description: String {
      switch self {
      case .whole(let observer, let state): "whole#\(observer) \(state)"
      case .level(let old, let new): "level \(old)→\(new)"
      }
    }
  }

  /// The states of A and B a transaction read (`tx.state(of:)`) at the end of its closure.
  struct Read: Hashable, Sendable, CustomStringConvertible {
    let transaction: Int
    let states: [TwinState]

    var description: String { "transaction \(transaction) read \(states)" }
  }

  /// What became of a transaction, comparable.
  enum Outcome: Hashable, Sendable {
    case committed, aborted, queued
    /// Failed with ``TwinBoom`` of this id.
    case failed(Int)
    /// Failed with another error.
    case unexpected(String)
  }

  /// The states of stores A and B.
  var states: [TwinState] = [TwinState(), TwinState()]
  /// What the observers of stores A and B recorded, each store's in order.
  var events: [[Event]] = TwinSide.allCases.map { _ in LaneSnapshot.registration }
  /// What store A's and B's whole-state observer delivered on a concurrent queue received.
  var queuedStates: [[TwinState]] = TwinSide.allCases.map { _ in [TwinState()] }
  /// What store A's and B's `\.level` observer delivered on a concurrent queue received (not
  /// ordered with the whole-state one: each has its own mailbox).
  var queuedLevels: [[Event]] = TwinSide.allCases.map { _ in [.level(old: 0, new: 0)] }
  /// The kinds of the issues reported, in order.
  var issues: [String] = []
  var lockCount = 0
  var queueDepth = 0
  /// Whether a state of store A and of store B is kept, as Flask's `captureState()` saved it.
  var captured = [false, false]
  /// What each transaction that ran read, in the order they ran.
  var reads: [Read] = []
  /// The outcome of each transaction, by id.
  var outcomes: [Int: Outcome] = [:]
  /// The tickets of the `send` calls that resumed.
  var resumedSends: Set<Int> = []

  /// What a store's observers receive when they are added (S7): the current value.
  static let registration: [Event] = [
    .whole(observer: 0, TwinState()), .level(old: 0, new: 0), .whole(observer: 1, TwinState()),
  ]

  /// A line per field that differs from `expected`; for the observer logs, from the first
  /// event that differs.
  func differences(from expected: LaneSnapshot) -> [String] {
    var lines: [String] = []
    func compare<Value: Equatable>(_ name: String, _ actual: Value, _ expected: Value) {
      if actual != expected { lines.append("\(name): \(actual), expected \(expected)") }
    }
    func compareLogs<Element: Equatable>(_ name: String, _ actual: [Element], _ wanted: [Element]) {
      guard actual != wanted else { return }
      let first =
        zip(actual, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, wanted.count)
      lines.append(
        "\(name) from #\(first): \(Array(actual[first...])), expected \(Array(wanted[first...]))")
    }
    for side in TwinSide.allCases {
      let index = side.rawValue
      compare("state of \(side)", states[index], expected.states[index])
      compareLogs("observers of \(side)", events[index], expected.events[index])
      compareLogs(
        "queued state observer of \(side)", queuedStates[index], expected.queuedStates[index])
      compareLogs(
        "queued level observer of \(side)", queuedLevels[index], expected.queuedLevels[index])
    }
    compare("issues", issues, expected.issues)
    compare("lockCount", lockCount, expected.lockCount)
    compare("queueDepth", queueDepth, expected.queueDepth)
    compare("captured", captured, expected.captured)
    compareLogs("transaction reads", reads, expected.reads)
    compare("transaction outcomes", outcomes, expected.outcomes)
    compare("resumed sends", resumedSends.sorted(), expected.resumedSends.sorted())
    return lines
  }
}
