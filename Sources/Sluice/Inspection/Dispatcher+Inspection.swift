extension Dispatcher {
  /// Attaches `inspector` to the lane (see ``LaneInspector``) and returns the subscription that
  /// detaches it; `nil` when another inspector is attached.
  ///
  /// While it is attached, every action is queued with its dispatch site and cause, and every
  /// store on the lane, present or future, reports every step to it.
  package func attach(inspector: any LaneInspector) -> Subscription? {
    guard lane.attachInspector(inspector) else { return nil }
    return Subscription { [lane] in lane.detachInspector(inspector) }
  }

  /// The stores on the lane, as an inspector sees them, in lane order.
  package var inspectedStores: [InspectedStore] { lane.inspectedStores() }
}
