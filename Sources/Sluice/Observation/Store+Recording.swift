extension Store {
  /// Calls `body` on the lane after every action the store sees — reduced, not handled, or
  /// dropped by middleware — with the state before and after it; committed transactions arrive
  /// as ``TransactionCommitted``. For Sluice's testing tools.
  ///
  /// The recorder is in place when this returns (it is registered through the lane).
  package func record(_ body: @escaping @Sendable (StepRecord<State>) -> Void) -> Subscription {
    watch(.stepped) { event in
      if case .stepped(let step) = event { body(step) }
    }
  }

  /// Registers a watcher of the store's steps (see ``StepEvent``): `body` receives the events
  /// of `kind`, where `delivery` says, until the subscription is cancelled or deinitialized.
  /// Registered as lane work (``Lane/perform(_:_:_:)``): at once when called from the lane.
  func watch(
    _ kind: StepEvent<State>.Kind, on delivery: Delivery = .synchronous,
    _ body: @escaping @Sendable (StepEvent<State>) -> Void
  ) -> Subscription {
    let sink = Sink(delivery: delivery, body: body)
    let core = self.core
    core.lane.perform {
      guard !sink.gate.isCancelled else { return }
      core.watchers.append((kind, sink))
      if core.extrasChanged() { core.lane.rebuildRouting() }
    }
    return subscription(for: sink.gate, cancelsOnDeinit: true)
  }

  /// Resumes once everything queued on the lane so far was processed.
  package func drainLane() async {
    await core.lane.performAsync(.change) {}
  }

  /// Returns once everything queued on the lane so far was processed: at once, on this thread,
  /// when the lane is free; after the thread holding it processed them otherwise. Returns
  /// without waiting when the lane is paused (a lock) or this thread holds another lane. For
  /// testing tools that cannot await (a deinitializer collecting what effects dispatched).
  package func flushLane() {
    core.lane.perform(.change) {}
  }

  /// Processes `action` on the lane, as one step: the recorders see the actions it processes as
  /// `inside == true`. For ``record(_:)``'s users, which tell the actions they sent from those
  /// their effects dispatched.
  ///
  /// - Returns: The effects the step started that are still in flight when it ends.
  @discardableResult
  package func sendMarked(
    _ action: some Action, marker: @escaping @Sendable (Bool) -> Void
  ) async -> [EffectTask] {
    let lane = core.lane
    return await lane.performAsync(.change) {
      marker(true)
      let first = lane.effects.nextStartToken
      lane.process(boxed: action)
      marker(false)
      return lane.effects.tasks(startedFrom: first)
    } ?? []
  }
}
