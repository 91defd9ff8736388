import Sluice

/// The stores' states away from the live app: from a base, through recorded steps, by the
/// states the steps recorded, or, from the first step left out on, by the stores' reducers
/// alone (no middleware, observer or effect runs, and no live store is touched).
enum Fork {
  /// The states (by store number) after `records` (oldest first), applied to `base`, leaving
  /// out the records whose numbers are in `skipping`.
  ///
  /// Up to the first record left out, each store gets the state its steps recorded after
  /// them: what the live store was, even where a reducer is not pure (it reads the time). From
  /// there on, the recorded states no longer follow: a transaction or a replacement sets the
  /// states it recorded, and an action is reduced by the reducer of each store that reduced
  /// it live (or the action its middleware replaced it with).
  static func states(
    from base: [Int: any Sendable], through records: some Sequence<InspectorRecord>,
    stores: [Int: InspectedStore], skipping: Set<UInt64>
  ) -> [Int: any Sendable] {
    var states = base
    var replaying = false
    for record in records {
      guard !skipping.contains(record.seq) else {
        replaying = true
        continue
      }
      for entry in record.entries where entry.changes && states[entry.store] != nil {
        guard replaying, !entry.setsState, record.kind == .action else {
          states[entry.store] = entry.after
          continue
        }
        guard let action = entry.replacement ?? record.action, let store = stores[entry.store],
          let state = states[entry.store], let reduced = store.reduce(state, action)
        else { continue }
        states[entry.store] = reduced
      }
    }
    return states
  }
}
