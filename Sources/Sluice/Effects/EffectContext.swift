/// What a running effect can see and do: the store's current state, its dependencies,
/// dispatching, and cooperative cancellation.
///
/// ```swift
/// Effects<Search>()
///   .on(QueryChanged.self, policy: .latest) { action, context in
///     // cancelled when a newer query arrives
///     let items = try await context.dependencies.searchClient.fetch(action.text)
///     guard context.state.query == action.text else { return }
///     context.dispatch(ResultsLoaded(items: items))
///   }
/// ```
///
/// An effect runs outside the lane, as a Swift task; nothing it does can block the lane.
/// Once the effect is cancelled, its ``dispatch(_:file:line:)`` and ``send(_:file:line:)`` calls are
/// dropped, so a stale response never reaches the store.
public struct EffectContext<State: Sendable>: Sendable {
  let lane: Lane
  let readState: @Sendable () -> State
  let errors: ErrorSink
  let source: ErrorEvent.Source
  let trigger: (any Action)?

  /// What the effect depends on: its store's ``Dependencies``, as given when the store was made
  /// (a dispatcher's effects: those given to ``Dispatcher/addEffects(_:dependencies:)``). They
  /// stay readable after the store went.
  public let dependencies: Dependencies

  /// The store's state now (not when the effect started): read it again after each `await`.
  ///
  /// A dispatcher's effects have no store; their state is `()`. Reach stores through
  /// ``dispatcher`` instead.
  public var state: State { readState() }

  /// The dispatcher whose lane the effect belongs to: the one ``AnyStore/dispatcher`` returns.
  ///
  /// Once that dispatcher went (every store on the lane went, and the effect was cancelled), a
  /// new dispatcher with a lane of its own and no store: what the cancelled effect does through
  /// it reaches nothing.
  public var dispatcher: Dispatcher {
    lane.dispatcher ?? Dispatcher(label: lane.configuration.label, reporter: lane.reporter)
  }

  /// Whether the effect was cancelled: by its policy, ``Store/cancelEffects(id:)``, or its
  /// store or dispatcher going away.
  public var isCancelled: Bool { Task.isCancelled }

  /// Throws `CancellationError` when the effect was cancelled.
  public func checkCancellation() throws {
    try Task.checkCancellation()
  }

  /// Queues an action on the lane and returns at once; never blocks, even when the dispatcher's
  /// queue is full (the action is then queued past `maxQueueDepth`, and that is reported as
  /// ``ReportedIssue/Kind/queueBoundExceeded``). Await ``send(_:file:line:)`` instead to wait
  /// for room. Dropped when the effect was cancelled.
  public func dispatch<A: Action>(
    _ action: A, file: StaticString = #fileID, line: UInt = #line
  ) {
    guard !Task.isCancelled else { return }
    lane.dispatch(action, mode: .async, file: file, line: line)
  }

  /// Dispatches an action and resumes once it was processed (with everything it caused); when
  /// the dispatcher has a `maxQueueDepth` and its queue is full, suspends for room first (it
  /// never blocks a thread). Dropped when the effect was cancelled.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - file: Where the action was dispatched, for an attached inspector; the caller's by
  ///     default.
  ///   - line: The line of that place; the caller's by default.
  public func send(
    _ action: some Action, file: StaticString = #fileID, line: UInt = #line
  ) async {
    guard !Task.isCancelled else { return }
    await lane.send(action, file: file, line: line)
  }

  /// Reports an error on the store's and dispatcher's error channels without ending the effect
  /// (an effect that throws reports its error the same way, and ends).
  public func report(_ error: any Error) {
    errors.report(ErrorEvent(error: error, action: trigger, source: source))
  }
}
