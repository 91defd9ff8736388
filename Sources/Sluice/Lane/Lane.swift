import Dispatch
import Synchronization

/// The serial lane behind a ``Dispatcher``: it processes actions and lane work one at a time, in
/// arrival order, on whichever thread holds it. It does what its ``LaneStateMachine`` (in
/// ``LaneStorage``, under the lane's one lock) decides, outside that lock: it processes items
/// (reducers, observers, effects), blocks and wakes callers, and starts the worker queue. Every
/// item comes in through ``submit(_:bypass:completion:file:line:)``, or through the lock-free
/// shortcut (see ``LaneStorage``) when its caller finds the lane idle.
///
/// Fields marked "drainer only" are touched only by the thread holding the lane; the lock (or
/// the shortcut's acquire/release orderings) hands them from one holder to the next.
@usableFromInline
final class Lane: @unchecked Sendable {
  // @unchecked Sendable: see the type's discussion for which field is protected by what.
  struct Configuration: Sendable {
    var label: String
    var reentrancy: Dispatcher.Reentrancy
    var maxChainDepth: Int
    var maxQueueDepth: Int?
    var reporter: IssueReporter?
    /// A shared lane's ``LaneOrderSource``: every action dispatched to the lane goes there.
    var orderSource: (any LaneOrderSource)?
  }

  /// One queued item's content: an action or lane work, and what it needs when it runs.
  @usableFromInline struct Work {
    enum Kind {
      case action(any Action)
      case work(@Sendable () -> Void)
    }

    var kind: Kind
    /// How many actions, each dispatched while the previous one ran, led to this one.
    var depth = 0
    var chain: ChainLink?
    /// For an exclusive action: the lock it runs under (handed to the reactions it causes).
    var lock: Lock?
    /// Where and why the action was dispatched, when an inspector was attached then.
    var origin: DispatchOrigin?
  }

  typealias Item = LaneStorage.Machine.Item

  let configuration: Configuration
  /// `configuration.orderSource != nil`: the hot path tests a flag, not an existential.
  let isShared: Bool
  let storage: LaneStorage
  /// The lane's one lock (the storage's), which also guards the routing fields below.
  var lock: InternalLock { storage.lock }
  let drainerID = Atomic<UInt>(0)
  let routingVersion = Atomic<Int>(0)
  let workerQueue: DispatchQueue
  /// The effects in flight on this lane.
  let effects = EffectRuntime()
  /// Every error reported on this lane.
  let errors = ErrorChannel()

  // Guarded by `lock`.
  var cores: [AnyStoreCore] = []
  var orderEdges: [(store: ObjectIdentifier, after: ObjectIdentifier)] = []
  var effectRegistrations: [EffectRegistration] = []
  var routing = Routing()
  /// The lane's one dispatcher, set by its initializer before the lane is shared. Weak: the
  /// dispatcher owns the lane. It never makes a second dispatcher: it reads `nil` once the
  /// dispatcher is deinitialized, when no store is left on the lane and its effects are cancelled.
  weak var dispatcher: Dispatcher?

  // Drainer only: one thread at a time, so exclusivity is not checked at run time.
  @exclusivity(unchecked) private var cachedRouting = Routing()
  @exclusivity(unchecked) private var cachedVersion = -1
  @exclusivity(unchecked) private var lastType: ObjectIdentifier?
  @exclusivity(unchecked) private var lastRoutes: [Route] = []
  /// `lastRoutes[0]` when it is the only route, read without touching the array's refcount.
  @exclusivity(unchecked) private var lastSingle: Route?
  /// What runs after the reducers for `lastType` (effects, error reporting); `nil` for none.
  @exclusivity(unchecked) private(set) var lastExtras: StepExtras?
  /// What each action type seen since the routing changed reaches.
  @exclusivity(unchecked) private var typeRoutes: [ObjectIdentifier: TypeRoute] = [:]
  /// The routes whose store must be notified after the current step.
  @exclusivity(unchecked) private var touched: [Route] = []
  @exclusivity(unchecked) var currentDepth = 0
  /// The root whose chain the running item belongs to; 0 for none.
  @exclusivity(unchecked) var currentRoot: UInt64 = 0
  /// Whether the running item came through the shortcut (its chain gets a root on demand).
  @exclusivity(unchecked) var inShortcut = false
  /// The lock of the exclusive action being processed, if any.
  @exclusivity(unchecked) var currentLock: Lock?
  @exclusivity(unchecked) var currentChain: ChainLink?
  @exclusivity(unchecked) var currentActionType: (any Action.Type)?
  /// Whether the action being processed is a shared log's entry whose effects do not run here
  /// (another node dispatched it, or this node replays it after a restart).
  @exclusivity(unchecked) var runsNoEffects = false
  /// The hooks to run before the lane next wakes a waiter or lets go (``BeforeWakeHook``).
  @exclusivity(unchecked) var armedHooks: [any BeforeWakeHook] = []
  /// What other parts of Sluice keep per lane (see ``local(_:make:)``).
  @exclusivity(unchecked) var locals: [ObjectIdentifier: AnyObject] = [:]
  /// The attached inspector as the drainer sees it (set and cleared by lane work).
  @exclusivity(unchecked) var activeInspector: (any LaneInspector)?
  /// The store whose observers the inspected lane is calling (``processInspected(boxed:)``).
  @exclusivity(unchecked) var notifyingCore: AnyStoreCore?
  /// The attached inspector (guarded by `lock`).
  var inspector: (any LaneInspector)?
  /// Whether an inspector is attached (dispatching threads then queue actions with origins).
  let isInspected = Atomic<Bool>(false)
  /// How many inspectors were attached so far (an effect's cause counts only for its own).
  let inspectionAttachment = Atomic<UInt64>(0)

  init(configuration: Configuration) {
    self.configuration = configuration
    isShared = configuration.orderSource != nil
    storage = LaneStorage(maxQueueDepth: configuration.maxQueueDepth)
    workerQueue = DispatchQueue(label: configuration.label)
  }

  var reporter: IssueReporter { configuration.reporter ?? .default }

  /// Reports an issue of `kind` to the lane's reporter, at `file`:`line`.
  func report(
    _ kind: ReportedIssue.Kind, _ message: String, file: StaticString = #fileID, line: UInt = #line
  ) {
    reporter.report(ReportedIssue(kind: kind, message: message, fileID: "\(file)", line: line))
  }

  /// Whether the calling thread holds this lane.
  @inline(__always)
  var isCurrentThreadDraining: Bool {
    drainerID.load(ordering: .relaxed) == ThreadContext.currentID
  }

  /// The number of queued items not yet processed.
  var queueDepth: Int { storage.peek { $0.queueDepth } }

  /// Whether a lock holds the lane.
  var isPaused: Bool { storage.peek { $0.isPaused } }

  /// The number of locks held.
  var lockCount: Int { storage.peek { $0.locks.count } }

  // MARK: - The way in

  /// How the caller of ``submit(_:bypass:completion:file:line:)`` waits for its item's chain.
  @usableFromInline
  enum Completion {
    /// It does not: the item is queued (an asynchronous dispatch, housekeeping).
    case none
    /// As a synchronous dispatch (S2): the calling thread drains an idle lane, or blocks until
    /// its chain ran or a lock holds the rest (a thread holding another lane never blocks).
    case sync
    /// The calling task resumes this once its chain ran; no thread blocks.
    case resume(UnsafeContinuation<Void, Never>)

    var waits: Bool {
      if case .none = self { return false }
      return true
    }

    /// Resumes the waiting task, if any, now: its item did not wait in this lane's queue.
    func resumeNow() {
      if case .resume(let continuation) = self { continuation.resume() }
    }
  }

  /// Dispatches `action` (synchronously, by reference: see ``ActionPayload``).
  @inlinable @inline(__always)
  func dispatch<A: Action>(_ action: A, mode: DispatchMode, file: StaticString, line: UInt) {
    if mode == .async {
      // Queued in the item itself: packed when the action is small (see ``QueuedWork``).
      return submit(QueuedWork(action), completion: .none, file: file, line: line)
    }
    ActionPayload.with(action) { dispatch($0, file: file, line: line) }
  }

  /// Dispatches the action `payload` points at: through the shortcut, or boxed and submitted.
  @usableFromInline
  func dispatch(_ payload: ActionPayload, file: StaticString, line: UInt) {
    if !isShared, storage.tryShortcut() {
      runShortcut { process(payload) }
      return
    }
    submit(payload, file: file, line: line)
  }

  @inline(never)
  private func submit(_ payload: ActionPayload, file: StaticString, line: UInt) {
    submit(QueuedWork(payload), completion: .sync, file: file, line: line)
  }

  /// Dispatches `action` and resumes once its chain ran, never blocking a thread; with a
  /// `maxQueueDepth`, first waits for room. On a shared lane, resumes once the log took the
  /// action and this node applied it.
  func send(_ action: any Action, file: StaticString, line: UInt) async {
    if isShared, let source = configuration.orderSource { return await source.send(action) }
    if performNow({ process(boxed: action) }) != nil { return }
    guard configuration.maxQueueDepth != nil else {
      return await withUnsafeContinuation {
        submit(QueuedWork(boxed: action), completion: .resume($0), file: file, line: line)
      }
    }
    await reserveRoom()
    await withUnsafeContinuation {
      submitReserved(QueuedWork(boxed: action), $0, file: file, line: line)
    }
  }

  /// What kind of lane work ``perform(_:_:_:)`` runs.
  enum WorkKind {
    /// Registration, a query or housekeeping: runs at once when the caller holds the lane and
    /// waits, and is not held by locks.
    case query
    /// A change of state (a reset, a transaction): queued after the current step when the caller
    /// holds the lane, and held by locks like an action.
    case change
  }

  /// Runs `work` on the lane: through the shortcut when the lane is free and the caller waits,
  /// submitted otherwise (`.none`: after the current item, never on the caller's thread).
  func perform(
    _ kind: WorkKind = .query, _ completion: Completion = .sync,
    _ work: @escaping @Sendable () -> Void
  ) {
    if completion.waits {
      if kind == .query, isCurrentThreadDraining {
        work()
        return completion.resumeNow()
      }
      if performNow(work) != nil { return completion.resumeNow() }
    }
    submit(QueuedWork(Work(kind: .work(work))), bypass: kind == .query, completion: completion)
  }

  /// Runs `body` through the shortcut and returns its result; `nil`, running nothing, when the
  /// lane is held, paused or has work queued. Allocates nothing.
  func performNow<T>(_ body: () -> T) -> T? {
    guard storage.tryShortcut() else { return nil }
    var result: T?
    runShortcut { result = body() }
    return result
  }

  /// ``perform(_:_:_:)`` that returns `body`'s result, or `nil` when the work was queued
  /// instead of run (the caller holds another lane and this one is busy, or the lane is paused
  /// and `kind` is `.change`).
  func performReturning<T: Sendable>(
    _ kind: WorkKind = .query, _ body: @escaping @Sendable () -> T
  ) -> T? {
    let result = Guarded<T?>(nil)
    perform(kind) {
      let value = body()
      result.withLock { $0 = value }
    }
    return result.withLock { $0 }
  }

  /// ``perform(_:_:_:)`` for a task: resumes with `body`'s result once it ran; blocks no thread.
  @discardableResult
  func performAsync<T: Sendable>(
    _ kind: WorkKind, _ body: @escaping @Sendable () -> T
  ) async -> T? {
    let result = Guarded<T?>(nil)
    await withUnsafeContinuation {
      perform(kind, .resume($0)) {
        let value = body()
        result.withLock { $0 = value }
      }
    }
    return result.withLock { $0 }
  }

  // MARK: - Processing

  /// Reduces the action `payload` points at into every store that handles it, notifies the
  /// stores that changed, then starts the action's effects.
  @inline(__always)
  func process(_ payload: ActionPayload) {
    currentActionType = payload.type
    let id = payload.id
    refreshRouting()
    if id == lastType, let route = lastSingle {
      if route.reduce(payload) { route.notify() }
      if let extras = lastExtras {
        finishStep(payload.boxed(), extras: extras, routes: lastRoutes)
      }
      return
    }
    processRouting(payload, id: id)
  }

  /// ``process(_:)`` for an action boxed in an `any Action`.
  func process(boxed action: any Action) {
    ActionPayload.with(boxed: action) { process($0) }
  }

  /// ``process(_:)`` when the action's type is not the last one's, or reaches several stores.
  @inline(never)
  private func processRouting(_ payload: ActionPayload, id: ObjectIdentifier) {
    let routes = routes(for: id, type: payload.type)
    let extras = lastExtras
    switch routes.count {
    case 0: break
    case 1:
      let route = routes[0]
      if route.reduce(payload) { route.notify() }
    default:
      touched.removeAll(keepingCapacity: true)
      for route in routes where route.reduce(payload) { touched.append(route) }
      for route in touched { route.notify() }
      touched.removeAll(keepingCapacity: true)
    }
    if let extras { finishStep(payload.boxed(), extras: extras, routes: routes) }
  }

  /// Reports the error an action carries and starts its effects (drainer only). With
  /// `consultingMiddleware` (see ``Effects``), a store's effects and error report follow what its
  /// middleware made of the action (read once, then reset), and the lane's are vetoed when a
  /// store dropped it and none took it; without (a committed transaction), they run regardless.
  @inline(never)
  func finishStep(
    _ action: any Action, extras: StepExtras, routes: [Route], consultingMiddleware: Bool = true
  ) {
    let consulting = consultingMiddleware && extras.mayIntercept
    var diverted = false
    var dropped = false
    var taken = false
    if consulting {
      for route in routes {
        switch route.core.middlewareOutcome {
        case .passed: taken = taken || route.slot >= 0 || route.core.hasCatchAll
        case .dropped:
          dropped = true
          diverted = true
        case .replaced:
          taken = true
          diverted = true
        }
      }
    }
    let vetoed = dropped && !taken
    if extras.carriesErrors, !vetoed, let event = errorEvent(action) {
      for route in routes where route.slot >= 0 || route.core.hasCatchAll {
        if diverted, route.core.middlewareOutcome.diverts { continue }
        route.core.errors.receive(event)
      }
      errors.receive(event)
    }
    for registration in extras.effects {
      if let owner = registration.owner {
        if diverted, owner.middlewareOutcome.diverts { continue }
      } else if vetoed {
        continue
      }
      effects.trigger(registration, action: action, runs: !runsNoEffects)
    }
    if diverted { finishReplacements(routes) }
    if consulting {
      for route in routes { route.core.middlewareOutcome = .passed }
    }
  }

  /// Starts the effects of the replacements the stores' middleware reduced, each store its own,
  /// and reports the errors they carry (drainer only).
  private func finishReplacements(_ routes: [Route]) {
    for route in routes {
      guard case .replaced(let replacement) = route.core.middlewareOutcome else { continue }
      let id = ObjectIdentifier(type(of: replacement))
      if route.core.slot(for: id) != nil || route.core.hasCatchAll,
        let event = errorEvent(replacement)
      {
        route.core.errors.receive(event)
        errors.receive(event)
      }
      for registration in cachedRouting.effects[id] ?? [] where registration.owner === route.core {
        effects.trigger(registration, action: replacement, runs: !runsNoEffects)
      }
    }
  }

  /// The report of the error `action` carries, if it carries one.
  private func errorEvent(_ action: any Action) -> ErrorEvent? {
    guard let error = (action as? any ErrorCarrying)?.error else { return nil }
    return ErrorEvent(error: error, action: action, source: .action("\(type(of: action))"))
  }

  /// Picks up a new routing table, if any, and frees the cores it no longer names.
  @inline(__always)
  func refreshRouting() {
    guard routingVersion.load(ordering: .acquiring) != cachedVersion else { return }
    replaceRouting()
  }

  /// Copies the routing table under the lock; the table it replaces and the retired cores are
  /// released after it (drainer only).
  @inline(never)
  private func replaceRouting() {
    let (fresh, version, unused) = storage.withMachine { machine in
      (routing, routingVersion.load(ordering: .relaxed), machine.routesReplaced())
    }
    let replaced = forgetRoutes()
    cachedRouting = fresh
    cachedVersion = version
    withExtendedLifetime((replaced, unused)) {}
  }

  /// What ``forgetRoutes()`` dropped from the drainer's cache.
  typealias ForgottenRoutes = (Routing, [ObjectIdentifier: TypeRoute], StepExtras?)

  /// Drops every cached route (drainer only, or under `lock` while the lane is idle): routes hold
  /// their cores unmanaged, so none may outlive a core that is about to be released. Returns what
  /// the cache held (effect registrations hold closures the user wrote, and their stores), for
  /// the caller to release once it let go of `lock`.
  func forgetRoutes() -> ForgottenRoutes {
    let forgotten = (cachedRouting, typeRoutes, lastExtras)
    cachedRouting = Routing()
    cachedVersion = -1
    lastType = nil
    lastRoutes = []
    lastSingle = nil
    lastExtras = nil
    typeRoutes = [:]
    return forgotten
  }

  /// The stores an action of `type` reaches (drainer only).
  func routeCores(for type: any Action.Type) -> [AnyStoreCore] {
    refreshRouting()
    return routes(for: ObjectIdentifier(type), type: type).map(\.core)
  }

  func routes(for id: ObjectIdentifier, type: any Action.Type) -> [Route] {
    if id == lastType { return lastRoutes }
    let route = typeRoutes[id] ?? classify(id, type: type)
    lastType = id
    lastRoutes = route.routes
    lastSingle = route.routes.count == 1 ? route.routes[0] : nil
    lastExtras = route.extras
    return route.routes
  }

  /// Looks an action type up in the routing table, once per routing change.
  private func classify(_ id: ObjectIdentifier, type: any Action.Type) -> TypeRoute {
    let effects = cachedRouting.effects[id] ?? []
    let carriesErrors = type is any ErrorCarrying.Type
    let routes = cachedRouting.byType[id] ?? cachedRouting.everyAction
    // A store with middleware (or taps) may drop or replace the action: its decision is read
    // after the step, whatever effects the action type has.
    let mayIntercept = routes.contains { $0.core.extras.load(ordering: .relaxed) > 0 }
    let route = TypeRoute(
      routes: routes,
      extras: effects.isEmpty && !carriesErrors && !mayIntercept
        ? nil
        : StepExtras(effects: effects, carriesErrors: carriesErrors, mayIntercept: mayIntercept))
    typeRoutes[id] = route
    return route
  }
}
