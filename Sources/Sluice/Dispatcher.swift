/// A serial lane of actions: every store attached to it sees every action, one at a time, in one
/// total order.
///
/// Stores made without a dispatcher own a private one. Share a dispatcher to put several stores
/// on one lane (Flux, JBFlux, Mini-Swift):
///
/// ```swift
/// let dispatcher = Dispatcher()
/// let todos = Store(initialState: Todos(), dispatcher: dispatcher, reducer: todosReducer)
/// let session = Store(initialState: Session(), dispatcher: dispatcher, reducer: sessionReducer)
/// dispatcher.dispatch(LoggedOut())  // both stores reduce it, in one lane step
/// ```
///
/// ## Guarantees
/// - One lane, one order: actions are processed one at a time, first come, first served; every
///   store on the lane sees the same order.
/// - ``dispatch(_:mode:file:line:)`` with ``DispatchMode/sync`` returns after every store reduced
///   the action and synchronous observers ran. Called from inside the lane it queues the action
///   and returns at once; the action runs before the outermost dispatch returns.
/// - Dispatch never deadlocks, from any thread. A thread that is itself processing another
///   lane (an observer of lane A dispatching to a busy lane B) does not wait for B: its action
///   is queued on B and the call returns.
/// - Reducers of one lane never run concurrently; `state` is safe to read from any thread.
///
/// ## Identity and lifetime
/// A lane has one dispatcher, for its whole life: ``AnyStore/dispatcher`` and
/// ``EffectContext/dispatcher`` return that object every time, so what is registered on it —
/// stores (``register(_:file:line:)-10kgd``) and effects (``addEffects(_:dependencies:)``) —
/// stays while the lane is in use:
///
/// ```swift
/// let store = Store(initialState: Session(), reducer: sessionReducer)
/// store.dispatcher.register(CurrentUser.self)           // kept: the store holds its dispatcher
/// store.dispatcher.store(CurrentUser.self)              // the registered store
/// ```
///
/// - The dispatcher lives while the program holds it or any store on it, registered or not.
/// - Registered stores live while their dispatcher lives; so do its effects.
/// - When the program lets go of the dispatcher and of every store on it, the dispatcher is
///   deinitialized, and its registered stores, its effects and the lane go with it.
/// - ``unregister(_:)`` makes a store one that is not registered: it ends when the program lets
///   go of it (at once when nothing holds it).
/// - Since a store keeps its dispatcher alive, an effect registered on the dispatcher, or a
///   registered store's state, that captures a store of the same lane keeps the lane alive: an
///   effect reaches the stores through its context (`context.dispatcher.store(T.self)`).
public final class Dispatcher: @unchecked Sendable {
  // @unchecked Sendable: `lane` is immutable and Sendable; `registry` is guarded by the lane's
  // lock (and touched without it only by `deinit`, when nothing else can reach it).
  /// What the lane does with an action dispatched from inside itself (by a reducer, middleware or
  /// synchronous observer).
  public enum Reentrancy: Sendable, Hashable {
    /// Queue it after the current action. The default.
    case enqueue
    /// Report an ``ReportedIssue/Kind/reentrantDispatchRejected`` issue and drop it.
    case reject
  }

  @usableFromInline let lane: Lane
  /// The registered stores and the dispatcher's effects (see `Dispatcher+Registry.swift`).
  var registry = Registry()

  /// Creates a dispatcher.
  ///
  /// - Parameters:
  ///   - label: A name for the lane, used in reports and as its dispatch queue's label.
  ///   - reentrancy: What to do with actions dispatched from inside the lane.
  ///   - maxChainDepth: How many actions may follow one another, each dispatched while the
  ///     previous was processed, before the chain is reported as runaway and stopped.
  ///   - maxQueueDepth: When set, bounds the queue for ``send(_:file:line:)``, which suspends
  ///     until there is room (back-pressure). No action is ever dropped for it, and no dispatch
  ///     waits for it: an asynchronous ``dispatch(_:mode:file:line:)`` that finds the queue full
  ///     queues its action past the bound, returns at once, and
  ///     ``ReportedIssue/Kind/queueBoundExceeded`` is reported (once until the queue is back
  ///     within the bound).
  ///   - reporter: Receives the issues this dispatcher and its stores report;
  ///     ``IssueReporter/default`` when `nil`.
  public convenience init(
    label: String = "sluice.dispatcher",
    reentrancy: Reentrancy = .enqueue,
    maxChainDepth: Int = 1_000,
    maxQueueDepth: Int? = nil,
    reporter: IssueReporter? = nil
  ) {
    let configuration = Lane.Configuration(
      label: label, reentrancy: reentrancy, maxChainDepth: max(1, maxChainDepth),
      maxQueueDepth: maxQueueDepth.map { max(1, $0) }, reporter: reporter)
    self.init(lane: Lane(configuration: configuration))
  }

  /// A dispatcher whose actions go to `orderSource` (a shared lane's outbox) instead of being
  /// processed at once.
  convenience init(label: String, reporter: IssueReporter?, orderSource: any LaneOrderSource) {
    let configuration = Lane.Configuration(
      label: label, reentrancy: .enqueue, maxChainDepth: 1_000, maxQueueDepth: nil,
      reporter: reporter, orderSource: orderSource)
    self.init(lane: Lane(configuration: configuration))
  }

  /// The dispatcher of `lane`, a new lane: its one dispatcher.
  private init(lane: Lane) {
    self.lane = lane
    lane.dispatcher = self
  }

  /// Nothing holds the dispatcher: no store object is left on its lane (each holds it), and the
  /// lane holds it weakly. Its effects are removed, its registered stores end, outside every lock.
  deinit {
    for group in registry.effectGroups { lane.removeEffects(group: group) }
    for entry in registry.entries.values { entry.core.retire() }
  }

  /// The lane's label, as given at init; for tests.
  package var label: String { lane.configuration.label }

  /// The number of actions (and lane work items) queued and not yet processed.
  ///
  /// The action being processed is not counted; an idle lane has depth 0.
  public var queueDepth: Int { lane.queueDepth }

  /// The bound on ``queueDepth`` that makes ``send(_:file:line:)`` wait for room, if any, as
  /// given at init; for tests.
  package var maxQueueDepth: Int? { lane.configuration.maxQueueDepth }

  /// Dispatches an action to every store on this lane.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - mode: ``DispatchMode/sync`` (the default) returns once the action was reduced and
  ///     synchronous observers ran; ``DispatchMode/async`` queues it and returns at once.
  ///   - file: The file an issue about this dispatch (a rejected re-entrant dispatch, a runaway
  ///     chain) is reported at; the caller's by default.
  ///   - line: The line such an issue is reported at; the caller's by default.
  /// - Complexity: With no observer and nothing queued, one atomic claim, one lock around the
  ///   reducer and one table look-up per store that handles the action; no allocation, whatever
  ///   the action's size (the action reaches its handler by reference). A queued action takes
  ///   four words of the lane's queue; it is packed into them, with no allocation, when it is
  ///   trivial and at most 8 bytes, and boxed with its type (one allocation) otherwise.
  @inlinable
  public func dispatch<A: Action>(
    _ action: A, mode: DispatchMode = .sync,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    lane.dispatch(action, mode: mode, file: file, line: line)
  }

  /// Dispatches an action and resumes once it was processed.
  ///
  /// Never blocks a thread. When the dispatcher was made with a `maxQueueDepth` and that many items are
  /// queued, waits for room first.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - file: Where the action was dispatched, for an attached inspector; the caller's by
  ///     default.
  ///   - line: The line of that place; the caller's by default.
  public func send(
    _ action: some Action, file: StaticString = #fileID, line: UInt = #line
  ) async {
    await lane.send(action, file: file, line: line)
  }
}
