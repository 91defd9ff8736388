extension Store {
  /// Calls `body` on the lane after every action the store sees — reduced, not handled, or
  /// dropped by middleware — with the state before and after it; committed transactions arrive
  /// as ``TransactionCommitted``. For Sluice's testing tools.
  ///
  /// The recorder is in place when this returns (it is registered through the lane).
  package func record(_ body: @escaping @Sendable (StepRecord<State>) -> Void) -> Subscription {
    let core = self.core
    let id = Guarded<Int?>(nil)
    core.lane.perform {
      let assigned = core.nextMiddlewareID
      core.nextMiddlewareID += 1
      core.recorders.append((id: assigned, body: body))
      core.extras.wrappingAdd(1, ordering: .relaxed)
      core.lane.rebuildRouting()
      id.withLock { $0 = assigned }
    }
    return Subscription { [lane = core.lane, coreID = ObjectIdentifier(core)] in
      lane.perform {
        guard let assigned = id.withLock({ $0 }) else { return }
        lane.core(coreID)?.removeMiddleware(id: assigned)
      }
    }
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
      lane.process(action, type: type(of: action))
      marker(false)
    }
  }
}
