/// A handle on an observer, a middleware or a tap: cancel it to stop it.
///
/// A subscription cancels itself when it is deinitialized, so keep it as long as you want the
/// observer to run — in a property, or in a ``SubscriptionBag``:
///
/// ```swift
/// final class CounterView {
///   private let bag = SubscriptionBag()
///   init(store: Store<AppState>) {
///     store.observe(\.counter) { change in print(change.new) }.store(in: bag)
///   }
/// }
/// ```
///
/// After ``cancel()`` returns, the observer is not called again, and a call that was running on
/// another thread has finished — with two exceptions, where no new call starts and the running
/// one finishes on its own:
///
/// - `cancel()` runs inside a lane or an observer, where waiting could deadlock: it returns at
///   once.
/// - The running call has not ended after ``maximumCancelWait`` (it may be waiting for the very
///   thread that cancels, which would otherwise deadlock): `cancel()` returns and reports
///   ``ReportedIssue/Kind/cancelWaitedTooLong``.
///
/// A subscription never keeps its store alive.
public final class Subscription: Sendable {
  /// How long ``cancel()`` waits for a call of the observer running on another thread before
  /// it returns anyway: one second.
  ///
  /// A call that outlives the wait (an observer blocked on the thread that cancels, say) is
  /// reported as ``ReportedIssue/Kind/cancelWaitedTooLong``; it finishes on its own, and the
  /// observer is not called again.
  public static let maximumCancelWait: Duration = .seconds(1)

  private let cancellation: Guarded<(@Sendable () -> Void)?>
  private let cancelsOnDeinit: Bool

  /// Creates a subscription that runs `cancel` once, on the first ``cancel()`` or at deinit.
  public convenience init(_ cancel: @escaping @Sendable () -> Void) {
    self.init(cancelsOnDeinit: true, cancel)
  }

  init(cancelsOnDeinit: Bool, _ cancel: @escaping @Sendable () -> Void) {
    cancellation = Guarded(cancel)
    self.cancelsOnDeinit = cancelsOnDeinit
  }

  deinit {
    if cancelsOnDeinit { cancel() }
  }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { cancellation.withLock { $0 == nil } }

  /// Stops the observer. Idempotent; safe from any thread, and from inside the observer itself.
  ///
  /// Waits for a call of the observer running on another thread to end, at most
  /// ``maximumCancelWait``; see the discussion of ``Subscription``.
  public func cancel() {
    let body = cancellation.withLock { body in
      defer { body = nil }
      return body
    }
    body?()
  }

  /// The issue a cancel reports when it gave up waiting for a running call of an observer of
  /// `source`.
  static func cancelWaitedTooLong(
    for source: String, fileID: String = #fileID, line: UInt = #line
  ) -> ReportedIssue {
    ReportedIssue(
      kind: .cancelWaitedTooLong,
      message: "cancel() waited \(maximumCancelWait) for a call of an observer of \(source) "
        + "running on another thread, and returned before it ended; the call finishes on its "
        + "own and the observer is not called again. An observer that waits for the thread "
        + "that cancels it would otherwise deadlock.",
      fileID: fileID, line: line)
  }

  /// Hands the subscription to `bag`, which cancels it when the bag is deinitialized.
  public func store(in bag: SubscriptionBag) {
    bag.insert(self)
  }
}

/// Holds subscriptions and cancels them all when it is deinitialized (Unicore's `Disposer`,
/// RxSwift's `DisposeBag`).
public final class SubscriptionBag: Sendable {
  private let subscriptions = Guarded<[Subscription]>([])

  /// Creates an empty bag.
  public init() {}

  deinit { cancelAll() }

  /// The number of subscriptions held; for tests.
  package var count: Int { subscriptions.withLock { $0.count } }

  /// Adds a subscription.
  public func insert(_ subscription: Subscription) {
    subscriptions.withLock { $0.append(subscription) }
  }

  /// Cancels every subscription held and empties the bag.
  public func cancelAll() {
    let all = subscriptions.withLock { list in
      defer { list.removeAll() }
      return list
    }
    for subscription in all { subscription.cancel() }
  }
}
