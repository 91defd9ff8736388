extension Store {
  /// Calls `body` on the lane after every action the store sees — reduced, not handled, or
  /// dropped by middleware — with the state before and after it; committed transactions arrive
  /// as ``TransactionCommitted``. For Sluice's testing tools.
  ///
  /// The recorder is in place when this returns (it is registered through the lane).
  package func record(_ body: @escaping @Sendable (StepRecord<State>) -> Void) -> Subscription {
    addExtra { core, id in core.recorders.append((id: id, body: body)) }
  }

  /// Resumes once everything queued on the lane so far was processed.
  package func drainLane() async {
    await core.lane.performAsync(.change) {}
  }

  /// Runs `body` on the lane, as one step: the recorders see the actions it processes as
  /// `inside == true`. For ``record(_:)``'s users, which tell the actions they sent from those
  /// their effects dispatched.
  package func sendMarked(_ action: some Action, marker: @escaping @Sendable (Bool) -> Void) async {
    let lane = core.lane
    await lane.performAsync(.change) {
      marker(true)
      lane.process(boxed: action)
      marker(false)
    }
  }
}
