import Sluice

// State and action types shared by the cases.

/// The trivial state of the dispatch cases.
struct Counter: Equatable, Sendable {
  var value: Int
}

struct Increment: Action {}

/// 1,000 distinct cells, one key-path observer each.
struct Grid: Equatable, Sendable {
  var cells: [Int]
}

/// Changes one cell.
struct BumpCell: Action {
  let index: Int
}

/// A large dictionary; a few entries are observed.
struct Ledger: Equatable, Sendable {
  var entries: [Int: Int]
}

/// Changes one entry.
struct BumpEntry: Action {
  let key: Int
}

/// The reducer of the `floor.*` cases, written exactly like the store's handler.
let incrementReducer: @Sendable (inout Counter, Increment) -> Void = { state, _ in
  state.value += 1
}

/// Runs `round` (a few dispatches) and checks that observers fired
/// `expectedFires` times in all, so that each case measures what its name says.
func verifyFires(
  _ name: String, expectedFires: Int, _ round: () -> Void
) {
  let before = consumeCalls
  round()
  let fired = consumeCalls - before
  if fired != expectedFires {
    printError(
      "warning: \(name): expected \(expectedFires) observer calls during the check, saw \(fired)")
  }
}
