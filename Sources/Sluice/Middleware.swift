/// Code that runs around a store's reducer: it can observe an action, transform it or swallow it,
/// and see the state before and after.
///
/// A store runs its middleware in order: every `intercept` first (each sees the action the
/// previous one passed on), then every `before`, then the reducer, then every `after` in
/// *reverse* order, so the first middleware wraps all the others (as in RxStateFlow):
///
/// ```swift
/// let logging = Middleware<AppState>(
///   before: { action, state in print("about to reduce \(action)") },
///   after: { action, old, new in print("\(old.counter) → \(new.counter)") })
/// let onlyPositive = Middleware<AppState>.intercept { action, state in
///   if let change = action as? StepChangeRequested, change.step <= 0 { return .drop }
///   return .proceed
/// }
/// let store = Store(initialState: AppState(), reducer: reducer, middleware: [logging, onlyPositive])
/// ```
///
/// `before` may return a value that the store hands to the `after` of the same action and store
/// (a start time, a span): nested and concurrent reductions each get their own.
///
/// ```swift
/// let timing = Middleware<AppState>(
///   before: { _, _ in ContinuousClock.now },
///   after: { action, _, _, start in print("\(action) took \(start.duration(to: .now))") })
/// ```
///
/// Middleware runs on the lane; it may dispatch (the action is queued after the current one).
///
/// The store's effects follow what its middleware decided: an action it dropped starts none of
/// the store's effects (nor reaches the store's error channel), and an action it replaced starts
/// the store's effects of the replacement, with the replacement. See ``Effects`` for the
/// dispatcher's effects.
public struct Middleware<State: Sendable>: Sendable {
  /// What an interceptor decides about an action.
  public enum Decision: Sendable {
    /// Pass the action on unchanged.
    case proceed
    /// Reduce this action instead.
    case replace(any Action)
    /// Swallow the action: this store does not reduce it, and no later middleware sees it.
    case drop
  }

  let intercept: (@Sendable (any Action, State) -> Decision)?
  /// Returns the value the store hands to `after` (`()` for hooks without one).
  let before: (@Sendable (any Action, State) -> any Sendable)?
  let after: (@Sendable (any Action, State, State, any Sendable) -> Void)?

  /// Creates middleware from up to three hooks.
  ///
  /// - Parameters:
  ///   - intercept: Sees each action and the current state; may pass, replace or drop it.
  ///   - before: Sees the action about to be reduced and the state before it.
  ///   - after: Sees the reduced action, the state before and the state after it.
  public init(
    intercept: (@Sendable (any Action, State) -> Decision)? = nil,
    before: (@Sendable (any Action, State) -> Void)? = nil,
    after: (@Sendable (_ action: any Action, _ old: State, _ new: State) -> Void)? = nil
  ) {
    self.intercept = intercept
    self.before = before.map { hook in
      { @Sendable action, state -> any Sendable in hook(action, state) }
    }
    self.after = after.map { hook in { @Sendable action, old, new, _ in hook(action, old, new) } }
  }

  /// Creates middleware whose `before` hands a value to its `after`.
  ///
  /// The store keeps what `before` returns for an action and passes it to the `after` of the
  /// same action, and releases it on the lane, under no lock. Each store keeps its own values,
  /// so one middleware shared between stores, dispatchers and threads never mixes them up.
  ///
  /// - Parameters:
  ///   - intercept: Sees each action and the current state; may pass, replace or drop it.
  ///   - before: Sees the action about to be reduced and the state before it; returns the
  ///     value for `after`.
  ///   - after: Sees the reduced action, the state before and after it, and what `before`
  ///     returned for it.
  public init<Value: Sendable>(
    intercept: (@Sendable (any Action, State) -> Decision)? = nil,
    before: @escaping @Sendable (any Action, State) -> Value,
    after:
      @escaping @Sendable (
        _ action: any Action, _ old: State, _ new: State, _ value: Value
      ) -> Void
  ) {
    self.intercept = intercept
    self.before = { action, state in before(action, state) }
    self.after = { action, old, new, value in
      guard let value = value as? Value else {
        preconditionFailure("internal inconsistency: a middleware's after got another's value")
      }
      after(action, old, new, value)
    }
  }

  /// Middleware that only intercepts.
  public static func intercept(
    _ body: @escaping @Sendable (any Action, State) -> Decision
  ) -> Middleware {
    Middleware(intercept: body)
  }

  /// Middleware that only looks at each action before it is reduced.
  public static func before(_ body: @escaping @Sendable (any Action, State) -> Void) -> Middleware {
    Middleware(before: body)
  }

  /// Middleware that only looks at each action after it was reduced.
  public static func after(
    _ body: @escaping @Sendable (_ action: any Action, _ old: State, _ new: State) -> Void
  ) -> Middleware {
    Middleware(after: body)
  }
}

/// What a store's middleware made of the action of the current lane step (lane only).
enum MiddlewareOutcome {
  /// The action went on as dispatched, or the store ran no middleware for it.
  case passed
  /// A middleware dropped the action: the store did not reduce it.
  case dropped
  /// A middleware replaced the action: the store went on with this one.
  case replaced(any Action)

  /// Whether the store did not go on with the action as dispatched.
  var diverts: Bool {
    if case .passed = self { return false }
    return true
  }
}
