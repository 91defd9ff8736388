extension Dispatcher {
  /// Attaches `inspector` to the lane (see ``LaneInspector``), suspending until it is attached;
  /// `nil` when another inspector is attached.
  ///
  /// While it is attached, every action is queued with its dispatch site and cause, and every
  /// store on the lane, present or future, reports every step to it. `detach` detaches it and
  /// resumes once it is detached; the subscription, cancelled or deinitialized, queues the
  /// detachment and returns at once. Neither blocks a thread.
  package func attach(
    inspector: any LaneInspector
  ) async -> (subscription: Subscription, detach: @Sendable () async -> Void)? {
    guard await lane.attachInspector(inspector) else { return nil }
    return (
      Subscription { [lane] in lane.detachInspectorLater(inspector) },
      { [lane] in await lane.detachInspector(inspector) }
    )
  }

  /// The stores on the lane, as an inspector sees them, in lane order.
  package var inspectedStores: [InspectedStore] { lane.inspectedStores() }
}
