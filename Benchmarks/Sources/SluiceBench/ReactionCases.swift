import Sluice

/// `reaction.on10.state{10k,100k}` and `dotted_path.query`.
enum ReactionCases {
  static let all: [BenchCase] = [
    BenchCase(name: "reaction.on10.state10k") { onTen(entries: 10_000) },
    BenchCase(name: "reaction.on10.state100k") { onTen(entries: 100_000) },
    BenchCase(name: "dotted_path.query", make: dottedPath),
  ]

  /// A state of `entries` dictionary entries and 10 stored `Int` fields; one reactor with 10
  /// key-path queries, one per field. Each action changes one entry (rotating over 100 keys
  /// spread over the key range) and one field (rotating), so the reactor runs once per action
  /// and exactly one query's body runs. The per-action cost should not depend on `entries`.
  static func onTen(entries: Int) -> (Int) -> Void {
    let name = "reaction.on10.state\(entries / 1_000)k"
    let store = Store(
      initialState: Indexed(
        entries: Dictionary(uniqueKeysWithValues: (0..<entries).map { ($0, $0) })),
      reducer: Reducer<Indexed>().on(BumpEntryAndField.self) { state, action in
        state.entries[action.key, default: 0] &+= 1
        switch action.field {
        case 0: state.field0 &+= 1
        case 1: state.field1 &+= 1
        case 2: state.field2 &+= 1
        case 3: state.field3 &+= 1
        case 4: state.field4 &+= 1
        case 5: state.field5 &+= 1
        case 6: state.field6 &+= 1
        case 7: state.field7 &+= 1
        case 8: state.field8 &+= 1
        default: state.field9 &+= 1
        }
      })
    let subscription = store.react { reaction in
      reactionCalls &+= 1
      reaction.on(\.field0) { change in consume(change.new) }
      reaction.on(\.field1) { change in consume(change.new) }
      reaction.on(\.field2) { change in consume(change.new) }
      reaction.on(\.field3) { change in consume(change.new) }
      reaction.on(\.field4) { change in consume(change.new) }
      reaction.on(\.field5) { change in consume(change.new) }
      reaction.on(\.field6) { change in consume(change.new) }
      reaction.on(\.field7) { change in consume(change.new) }
      reaction.on(\.field8) { change in consume(change.new) }
      reaction.on(\.field9) { change in consume(change.new) }
    }
    let actions = (0..<100).map { index in
      BumpEntryAndField(key: index * (entries / 100), field: index % 10)
    }
    requireCalls(name, bodies: actions.count, reactions: actions.count) {
      for action in actions { store.dispatch(action) }
    }
    return { iterations in
      withExtendedLifetime(subscription) {
        requireCalls(name, bodies: iterations, reactions: iterations) {
          var index = 0
          for _ in 0..<iterations {
            store.dispatch(actions[index])
            index += 1
            if index == actions.count { index = 0 }
          }
        }
      }
    }
  }

  /// A small `Codable` state and one reactor with one dotted query, `"info.nest.foo"`; each
  /// action changes that value, so the query's body runs once per action. The reactor encodes
  /// the state once per step to read the path.
  static func dottedPath() -> (Int) -> Void {
    let name = "dotted_path.query"
    let store = Store(
      initialState: Profile(),
      reducer: Reducer<Profile>().on(BumpFoo.self) { state, _ in state.info.nest.foo &+= 1 })
    let subscription = store.react { reaction in
      reactionCalls &+= 1
      reaction.on("info.nest.foo") { change in consume(change.new.intValue ?? -1) }
    }
    // `foo` goes 0 → 1 … 10: the body must see each new value.
    let totalBefore = consumedTotal
    requireCalls(name, bodies: 10, reactions: 10) {
      for _ in 0..<10 { store.dispatch(BumpFoo()) }
    }
    require(
      consumedTotal &- totalBefore == 55, name,
      "the query's body saw values summing to \(consumedTotal &- totalBefore), expected 55")
    return { iterations in
      withExtendedLifetime(subscription) {
        requireCalls(name, bodies: iterations, reactions: iterations) {
          for _ in 0..<iterations {
            store.dispatch(BumpFoo())
          }
        }
      }
    }
  }
}
