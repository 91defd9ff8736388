import Dispatch
import Synchronization

/// The serial lane behind a ``Dispatcher``: it processes actions and lane work one at a time, in
/// arrival order, on whichever thread claims it.
///
/// A caller that finds the lane idle claims it with one atomic compare-and-swap and processes its
/// action on its own thread (the fast path: no queue, no allocation, no thread hop). A caller
/// that finds it busy appends its item to the queue and either waits for it (synchronous
/// dispatch from outside any lane), or returns at once (asynchronous dispatch; dispatch from
/// inside a lane, where waiting could deadlock). The thread that holds the lane drains the queue
/// before it lets go.
///
/// The atomic `word` holds two bits: `draining` (someone holds the lane) and `pending` (an item
/// was queued while it was held). Everything else shared lives under `lock`. Fields marked
/// "drainer only" are touched only by the thread holding the lane; the acquire/release
/// orderings on `word` hand them from one holder to the next.
@usableFromInline
final class Lane: @unchecked Sendable {
  // @unchecked Sendable: see the type's discussion for which field is protected by what.
  struct Configuration: Sendable {
    var label: String
    var reentrancy: Dispatcher.Reentrancy
    var maxChainDepth: Int
    var maxQueueDepth: Int?
    var reporter: IssueReporter?
  }

  enum Payload {
    case action(any Action)
    case work(@Sendable () -> Void)
  }

  /// Who waits for an item and everything it causes: nobody, a thread blocked in a synchronous
  /// dispatch, or a task suspended in `send`.
  enum Completion {
    case none
    case waiter
    case resume(CheckedContinuation<Void, Never>)
  }

  /// Progress of an item somebody waits for (a "root"): how many items of its chain — itself,
  /// and the items dispatched from inside the lane while they ran — are not processed yet.
  struct RootProgress {
    var outstanding: Int
    var continuation: CheckedContinuation<Void, Never>?
  }

  struct Item {
    var payload: Payload
    var seq: UInt64
    var depth: Int
    var chain: ChainLink?
    /// For an exclusive action: the lock it runs under (handed to the reactions it causes).
    var lock: Lock?
    /// The sequence number of the waited-for item whose chain this item belongs to; 0 for none.
    var root: UInt64
  }

  static let draining = 1
  static let pending = 2
  /// At least one lock is held: only the bypass queue is processed.
  static let paused = 4
  /// The bypass queue (exclusive actions, lane queries) is not empty.
  static let bypassPending = 8

  let configuration: Configuration
  let word = Atomic<Int>(0)
  let drainerID = Atomic<UInt>(0)
  let routingVersion = Atomic<Int>(0)
  let lock = InternalLock()
  let workerQueue: DispatchQueue
  /// The effects in flight on this lane.
  let effects = EffectRuntime()
  /// Every error reported on this lane.
  let errors = ErrorChannel()

  // Guarded by `lock`.
  var queue = RingBuffer<Item>()
  /// Items that run even while the lane is paused: exclusive actions, and lane queries
  /// (registration, counts) that must not wait for a lock.
  var bypass = RingBuffer<Item>()
  var pauseCount = 0
  var locks: [ObjectIdentifier: WeakLock] = [:]
  var nextSeq: UInt64 = 1
  /// The roots somebody waits for, by sequence number; a root leaves when its chain is done.
  var roots: [UInt64: RootProgress] = [:]
  var capacityWaiters: [CheckedContinuation<Void, Never>] = []
  var cores: [AnyStoreCore] = []
  /// Detached cores, alive until the drainer stopped using the routing that named them.
  var retired: [AnyStoreCore] = []
  var orderEdges: [(store: ObjectIdentifier, after: ObjectIdentifier)] = []
  var effectRegistrations: [EffectRegistration] = []
  var routing = Routing()
  weak var handle: Dispatcher?

  // Drainer only: one thread at a time, so exclusivity is not checked at run time.
  @exclusivity(unchecked) private var cachedRouting = Routing()
  @exclusivity(unchecked) private var cachedVersion = -1
  @exclusivity(unchecked) private var lastType: ObjectIdentifier?
  @exclusivity(unchecked) private var lastRoutes: [Route] = []
  /// `lastRoutes[0]` when it is the only route (the common case), read without touching the
  /// array's reference count.
  @exclusivity(unchecked) private var lastSingle: Route?
  /// What runs after the reducers for `lastType` (effects, error reporting); `nil` for none.
  @exclusivity(unchecked) private var lastExtras: StepExtras?
  /// What each action type seen since the routing changed reaches.
  @exclusivity(unchecked) private var typeRoutes: [ObjectIdentifier: TypeRoute] = [:]
  @exclusivity(unchecked) private var touched: [AnyStoreCore] = []
  @exclusivity(unchecked) var currentDepth = 0
  @exclusivity(unchecked) var currentRoot: UInt64 = 0
  /// The lock of the exclusive action being processed, if any.
  @exclusivity(unchecked) var currentLock: Lock?
  @exclusivity(unchecked) var currentChain: ChainLink?
  @exclusivity(unchecked) var currentActionType: (any Action.Type)?
  /// Persistences in write-through mode whose store changed since their last write.
  @exclusivity(unchecked) var writeThroughPending: [any WriteThroughTarget] = []

  init(configuration: Configuration) {
    self.configuration = configuration
    workerQueue = DispatchQueue(label: configuration.label)
  }

  var reporter: IssueReporter { configuration.reporter ?? .default }

  /// Whether the calling thread holds this lane.
  @inline(__always)
  var isCurrentThreadDraining: Bool {
    drainerID.load(ordering: .relaxed) == ThreadContext.currentID
  }

  /// The number of queued items not yet processed.
  var queueDepth: Int { lock.withLock { queue.count + bypass.count } }

  // MARK: - Dispatch

  /// Dispatches `action`, whose dynamic type is `type` (passed by callers that know it
  /// statically, so the hot path does not look it up).
  @usableFromInline
  func dispatch(
    _ action: any Action, type: any Action.Type, mode: DispatchMode, file: StaticString,
    line: UInt
  ) {
    if mode == .sync, tryClaim() {
      beginDrain()
      process(action, type: type)
      finishDrain()
      return
    }
    submit(.action(action), mode: mode, bypass: false, file: file, line: line)
  }

  func send(_ action: any Action) async {
    if runIfIdle({ process(action, type: type(of: action)) }) { return }
    if let bound = configuration.maxQueueDepth { await waitForCapacity(below: bound) }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      if isCurrentThreadDraining {
        // Unreachable in practice (a lane's thread runs synchronous code), but never block.
        enqueueFromInside(.action(action), file: #fileID, line: #line)
        continuation.resume()
        return
      }
      append(.action(action), completion: .resume(continuation), bypass: false)
      drainIfClaimed()
    }
  }

  /// What kind of lane work ``perform(_:_:)`` runs.
  enum WorkKind {
    /// Registration or a query: runs at once when the caller holds the lane, and is not held by
    /// locks.
    case query
    /// A change of state (a reset, a transaction): queued after the current step when the caller
    /// holds the lane, and held by locks like an action.
    case change
  }

  /// Runs `work` on the lane, as a synchronous dispatch would.
  func perform(_ kind: WorkKind = .query, _ work: @escaping @Sendable () -> Void) {
    if isCurrentThreadDraining, kind == .query { return work() }
    if runIfIdle(work) { return }
    submit(.work(work), mode: .sync, bypass: kind == .query, file: #fileID, line: #line)
  }

  /// Runs `body` on the lane like ``perform(_:_:)`` and returns its result, or `nil` when the
  /// work was queued instead of run (the caller holds another lane and this one is busy, or the
  /// lane is paused and `kind` is `.change`).
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

  /// Queues lane housekeeping (sweeps) to run after the current item; never waits, and is not
  /// held by locks.
  func performLater(_ work: @escaping @Sendable () -> Void) {
    submit(.work(work), mode: .async, bypass: true, file: #fileID, line: #line)
  }

  /// Runs `work` on the lane and resumes once it ran; never blocks a thread.
  func performAsync(_ kind: WorkKind, _ work: @escaping @Sendable () -> Void) async {
    if isCurrentThreadDraining, kind == .query { return work() }
    if runIfIdle(work) { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      append(.work(work), completion: .resume(continuation), bypass: kind == .query)
      drainIfClaimed()
    }
  }

  // MARK: - Claiming and draining

  @inline(__always)
  func tryClaim() -> Bool {
    word.compareExchange(expected: 0, desired: Lane.draining, ordering: .acquiring).exchanged
  }

  /// After an item was queued: claims the lane if it is idle (returns `true`), or tells its
  /// holder that more work arrived (returns `false`). Either way the `pending` bit is set, so
  /// the holder drains the queue before it lets go.
  func claimOrFlag() -> Bool {
    var current = word.load(ordering: .relaxed)
    while true {
      let held = current & Lane.draining != 0
      let blocked = current & Lane.paused != 0 && current & Lane.bypassPending == 0
      let claims = !held && !blocked
      let desired = current | Lane.pending | (claims ? Lane.draining : 0)
      let (exchanged, original) = word.compareExchange(
        expected: current, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged { return claims }
      current = original
    }
  }

  /// Runs `body` on the lane when it is idle (one atomic claim, no queue); returns whether it
  /// did.
  @inline(__always)
  func runIfIdle(_ body: () -> Void) -> Bool {
    guard tryClaim() else { return false }
    beginDrain()
    body()
    finishDrain()
    return true
  }

  /// After an item was queued: drains the lane on this thread when that claimed it.
  func drainIfClaimed() {
    if claimOrFlag() {
      beginDrain()
      finishDrain()
    }
  }

  @inline(__always)
  func beginDrain() {
    drainerID.store(ThreadContext.currentID, ordering: .relaxed)
    ThreadContext.setDrainDepth(ThreadContext.drainDepth + 1)
  }

  /// Processes queued items until none can run (the queue is empty, or the lane is paused and
  /// the bypass queue is empty), then lets go of the lane.
  @inline(__always)
  func finishDrain() {
    let me = drainerID.load(ordering: .relaxed)
    while true {
      if word.load(ordering: .relaxed) & Lane.pending != 0 {
        word.bitwiseAnd(~Lane.pending, ordering: .acquiring)
        drainQueue()
      }
      // Write-through persistences write once per drain (and before each waiter is woken).
      if !writeThroughPending.isEmpty { flushWriteThrough() }
      drainerID.store(0, ordering: .relaxed)
      ThreadContext.setDrainDepth(ThreadContext.drainDepth - 1)
      // Common case first: nothing but the `draining` bit.
      if word.compareExchange(expected: Lane.draining, desired: 0, ordering: .releasing).exchanged {
        return
      }
      let current = word.load(ordering: .relaxed)
      if current & Lane.pending == 0,
        word.compareExchange(
          expected: current, desired: current & ~Lane.draining, ordering: .releasing
        ).exchanged
      {
        return
      }
      drainerID.store(me, ordering: .relaxed)
      ThreadContext.setDrainDepth(ThreadContext.drainDepth + 1)
    }
  }

  private func drainQueue() {
    while let item = popFirst() { run(item) }
  }

  private func popFirst() -> Item? {
    lock.lock()
    var item = bypass.popFirst()
    if item != nil {
      if bypass.isEmpty { word.bitwiseAnd(~Lane.bypassPending, ordering: .relaxed) }
    } else if pauseCount == 0 {
      item = queue.popFirst()
    }
    var wake: [CheckedContinuation<Void, Never>] = []
    if !capacityWaiters.isEmpty, let bound = configuration.maxQueueDepth, queue.count < bound {
      wake = capacityWaiters
      capacityWaiters.removeAll()
    }
    lock.unlock()
    for continuation in wake { continuation.resume() }
    return item
  }

  private func run(_ item: Item) {
    currentDepth = item.depth
    currentChain = item.chain
    currentRoot = item.root
    switch item.payload {
    case .action(let action):
      if let lock = item.lock {
        processExclusive(action, under: lock)
      } else {
        process(action, type: type(of: action))
      }
    case .work(let work): work()
    }
    currentDepth = 0
    currentChain = nil
    currentActionType = nil
    currentRoot = 0
    if item.root != 0 {
      // Durable before whoever waits for this chain is woken; once per chain.
      if !writeThroughPending.isEmpty, isLastOfChain(item.root) { flushWriteThrough() }
      finish(root: item.root)
    }
  }

  /// Whether the item being finished is the last outstanding one of `root`'s chain (only the
  /// drainer adds to a chain, so the answer holds until it finishes the item).
  private func isLastOfChain(_ root: UInt64) -> Bool {
    lock.withLock { (roots[root]?.outstanding ?? 0) <= 1 }
  }

  /// One more item of `root`'s chain was processed; wakes its waiter when none is left.
  private func finish(root: UInt64) {
    lock.lock()
    guard var progress = roots[root] else { return lock.unlock() }
    progress.outstanding -= 1
    if progress.outstanding > 0 {
      roots[root] = progress
      return lock.unlock()
    }
    roots.removeValue(forKey: root)
    if progress.continuation == nil { lock.broadcast() }
    lock.unlock()
    progress.continuation?.resume()
  }

  // MARK: - Processing

  /// Reduces `action` into every store that handles it, notifies the stores that changed, then
  /// starts the action's effects.
  @inline(__always)
  func process(_ action: any Action, type actionType: any Action.Type) {
    currentActionType = actionType
    let id = ObjectIdentifier(actionType)
    refreshRouting()
    if id == lastType, let route = lastSingle {
      if route.core.reduceOp(route.core, action, route.slot) { route.core.notifyOp(route.core) }
      if let extras = lastExtras { finishStep(action, extras: extras, routes: lastRoutes) }
      return
    }
    let routes = routes(for: id, type: actionType)
    let extras = lastExtras
    switch routes.count {
    case 0: break
    case 1:
      let route = routes[0]
      if route.core.reduceOp(route.core, action, route.slot) { route.core.notifyOp(route.core) }
    default:
      touched.removeAll(keepingCapacity: true)
      for route in routes where route.core.reduceOp(route.core, action, route.slot) {
        touched.append(route.core)
      }
      for core in touched { core.notifyOp(core) }
      touched.removeAll(keepingCapacity: true)
    }
    if let extras { finishStep(action, extras: extras, routes: routes) }
  }

  /// Reports the error an action carries and starts its effects (drainer only).
  @inline(never)
  private func finishStep(_ action: any Action, extras: StepExtras, routes: [Route]) {
    if extras.carriesErrors, let error = (action as? any ErrorCarrying)?.error {
      let event = ErrorEvent(
        error: error, action: action, source: .action("\(type(of: action))"))
      for route in routes where route.slot >= 0 || route.core.hasCatchAll {
        route.core.errors.receive(event)
      }
      errors.receive(event)
    }
    for registration in extras.effects { effects.trigger(registration, action: action) }
  }

  /// Runs what follows the reducers of `action` when it was reduced elsewhere: in a
  /// transaction that committed (drainer only).
  func finishStep(after action: any Action) {
    let actionType = type(of: action)
    let routes = routes(for: ObjectIdentifier(actionType), type: actionType)
    if let extras = lastExtras { finishStep(action, extras: extras, routes: routes) }
  }

  /// Picks up a new routing table, if any, and frees the cores it no longer names.
  @inline(__always)
  private func refreshRouting() {
    guard routingVersion.load(ordering: .acquiring) != cachedVersion else { return }
    lock.lock()
    cachedRouting = routing
    cachedVersion = routingVersion.load(ordering: .relaxed)
    let unused = retired
    retired.removeAll()
    lock.unlock()
    lastType = nil
    lastSingle = nil
    lastExtras = nil
    typeRoutes.removeAll()
    _ = unused  // Released here, outside the lock: a core's deinit may take other locks.
  }

  /// The stores an action of `type` reaches (drainer only).
  func routeCores(for type: any Action.Type) -> [AnyStoreCore] {
    refreshRouting()
    return routes(for: ObjectIdentifier(type), type: type).map(\.core)
  }

  private func routes(for id: ObjectIdentifier, type: any Action.Type) -> [Route] {
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
    let route = TypeRoute(
      routes: cachedRouting.byType[id] ?? cachedRouting.everyAction,
      extras: effects.isEmpty && !carriesErrors
        ? nil : StepExtras(effects: effects, carriesErrors: carriesErrors))
    typeRoutes[id] = route
    return route
  }
}
