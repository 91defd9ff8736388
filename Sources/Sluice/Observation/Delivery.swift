import Dispatch

/// Where an observer is called.
///
/// Whatever the delivery, one observer is never called concurrently with itself, it sees values
/// in the lane's order, and it is not called again once its ``Subscription`` was cancelled.
public enum Delivery: Sendable {
  /// On the lane, before the dispatch that caused the change returns. The default.
  case synchronous
  /// On a dispatch queue, serial or concurrent; values that pile up are delivered in one block,
  /// in order.
  case queue(DispatchQueue)
  /// On the main actor, in batches: every value that arrived since the last hop is delivered in
  /// one hop, in order.
  ///
  /// A command-line program must run the main actor (an `async` main, `dispatchMain()` or a run
  /// loop) for these deliveries to happen.
  case mainActor
}

/// Whether a new observer first receives the current value.
public enum ObservationStart: Sendable, Hashable {
  /// Deliver the current value at once, then every change. The default.
  case currentValue
  /// Deliver only changes that happen after the observer was added.
  case nextChange
}
