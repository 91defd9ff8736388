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

/// The second store of the `transaction.*` cases.
struct Meter: Equatable, Sendable {
  var reading: Int
  var samples: Int
}

/// Records a reading in a `Meter`.
struct Sample: Action {
  let reading: Int
}

/// A large dictionary beside 10 stored fields, for the `reaction.on10.*` cases.
struct Indexed: Equatable, Sendable {
  var entries: [Int: Int]
  var field0 = 0
  var field1 = 0
  var field2 = 0
  var field3 = 0
  var field4 = 0
  var field5 = 0
  var field6 = 0
  var field7 = 0
  var field8 = 0
  var field9 = 0
}

/// Changes one entry of an `Indexed` and one of its fields (`field` in 0..<10).
struct BumpEntryAndField: Action {
  let key: Int
  let field: Int
}

/// A small `Codable` state for the `dotted_path.query` case: a few nested structs, an array of
/// 10 elements and a `String`-keyed dictionary of 10 entries.
struct Profile: Codable, Equatable, Sendable {
  var info = ProfileInfo()
  var items = (0..<10).map { ProfileItem(id: $0, title: "item \($0)", price: Double($0) * 1.5) }
  var tags = Dictionary(uniqueKeysWithValues: (0..<10).map { ("tag\($0)", $0) })
  var version = 1
}

struct ProfileInfo: Codable, Equatable, Sendable {
  var name = "profile"
  var nest = ProfileNest()
  var flags = ProfileFlags()
}

struct ProfileNest: Codable, Equatable, Sendable {
  var foo = 0
  var bar = "bar"
  var ratio = 0.5
}

struct ProfileFlags: Codable, Equatable, Sendable {
  var enabled = true
  var level = 3
}

struct ProfileItem: Codable, Equatable, Sendable {
  var id: Int
  var title: String
  var price: Double
}

/// Changes `info.nest.foo`.
struct BumpFoo: Action {}
