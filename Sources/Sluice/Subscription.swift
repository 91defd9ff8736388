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
/// another thread has finished — unless `cancel()` itself runs inside a lane or an observer on
/// another thread, where waiting could deadlock: then no new call starts, and a running one
/// finishes on its own. A subscription never keeps its store alive.
public final class Subscription: Sendable {
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
  public func cancel() {
    let body = cancellation.withLock { body in
      defer { body = nil }
      return body
    }
    body?()
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

  /// The number of subscriptions held.
  public var count: Int { subscriptions.withLock { $0.count } }

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
