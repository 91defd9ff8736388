import Sluice

/// The stores' states rebuilt away from the live app: from a base, through recorded steps,
/// by the stores' reducers alone (no middleware, observer or effect runs, and no live store is
/// touched).
enum Fork {
  /// The states after `records` (oldest first), applied to `base`, leaving out the records
  /// whose numbers are in `skipping`.
  ///
  /// A record that is a transaction or a replacement sets the states it recorded; an action is
  /// reduced by the reducer of each store that reduced it live (or the action its middleware
  /// replaced it with). Middleware, observers and effects do not run: reducers are pure, so
  /// the fork reaches the states the live stores reached.
  static func states(
    from base: [String: any Sendable], through records: some Sequence<InspectorRecord>,
    stores: [String: InspectedStore], skipping: Set<UInt64>
  ) -> [String: any Sendable] {
    var states = base
    for record in records where !skipping.contains(record.seq) {
      for (id, state) in record.statesAfter { states[id] = state }
      guard let action = record.action, record.kind == .action else { continue }
      for id in record.reducedBy {
        guard let store = stores[id], let state = states[id],
          let reduced = store.reduce(state, record.replacements[id] ?? action)
        else { continue }
        states[id] = reduced
      }
    }
    return states
  }
}
