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
    /// The sequence number of the waited-for item whose chain this item belongs to; 0 for none.
    var root: UInt64
  }

  static let draining = 1
  static let pending = 2

  let configuration: Configuration
  let word = Atomic<Int>(0)
  let drainerID = Atomic<UInt>(0)
  let routingVersion = Atomic<Int>(0)
  let lock = InternalLock()
  private let workerQueue: DispatchQueue

  // Guarded by `lock`.
  var queue = RingBuffer<Item>()
  private var nextSeq: UInt64 = 1
  /// The roots somebody waits for, by sequence number; a root leaves when its chain is done.
  private var roots: [UInt64: RootProgress] = [:]
  private var capacityWaiters: [CheckedContinuation<Void, Never>] = []
  var cores: [AnyStoreCore] = []
  /// Detached cores, alive until the drainer stopped using the routing that named them.
  var retired: [AnyStoreCore] = []
  var orderEdges: [(store: ObjectIdentifier, after: ObjectIdentifier)] = []
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
  @exclusivity(unchecked) private var touched: [AnyStoreCore] = []
  @exclusivity(unchecked) private(set) var currentDepth = 0
  @exclusivity(unchecked) private var currentRoot: UInt64 = 0
  @exclusivity(unchecked) private var currentChain: ChainLink?
  @exclusivity(unchecked) private var currentActionType: (any Action.Type)?

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
  var queueDepth: Int { lock.withLock { queue.count } }

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
    submit(.action(action), mode: mode, file: file, line: line)
  }

  func send(_ action: any Action) async {
    if tryClaim() {
      beginDrain()
      process(action, type: type(of: action))
      finishDrain()
      return
    }
    if let bound = configuration.maxQueueDepth { await waitForCapacity(below: bound) }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      if isCurrentThreadDraining {
        // Unreachable in practice (a lane's thread runs synchronous code), but never block.
        enqueueFromInside(.action(action), file: #fileID, line: #line)
        continuation.resume()
        return
      }
      append(.action(action), completion: .resume(continuation))
      if claimOrFlag() {
        beginDrain()
        finishDrain()
      }
    }
  }

  /// What ``perform(ifOnLane:_:)`` does when the caller holds the lane.
  enum OnLane {
    /// Run the work at once, inside the current step (registration, queries).
    case runNow
    /// Queue it after the current step, as a dispatch would (state changes).
    case enqueue
  }

  /// Runs `work` on the lane, as a synchronous dispatch would; when the caller holds the lane,
  /// at once or after the current step, as `onLane` says.
  func perform(ifOnLane onLane: OnLane = .runNow, _ work: @escaping @Sendable () -> Void) {
    if isCurrentThreadDraining, onLane == .runNow { return work() }
    if tryClaim() {
      beginDrain()
      work()
      finishDrain()
      return
    }
    submit(.work(work), mode: .sync, file: #fileID, line: #line)
  }

  /// Queues `work` to run on the lane after the current item; never waits.
  func performLater(_ work: @escaping @Sendable () -> Void) {
    submit(.work(work), mode: .async, file: #fileID, line: #line)
  }

  // MARK: - Claiming and draining

  @inline(__always)
  private func tryClaim() -> Bool {
    word.compareExchange(expected: 0, desired: Lane.draining, ordering: .acquiring).exchanged
  }

  /// After an item was queued: claims the lane if it is idle (returns `true`), or tells its
  /// holder that more work arrived (returns `false`). Either way the `pending` bit is set, so
  /// the holder drains the queue before it lets go.
  private func claimOrFlag() -> Bool {
    var current = word.load(ordering: .relaxed)
    while true {
      let desired = current | Lane.draining | Lane.pending
      let (exchanged, original) = word.compareExchange(
        expected: current, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged { return current & Lane.draining == 0 }
      current = original
    }
  }

  @inline(__always)
  private func beginDrain() {
    drainerID.store(ThreadContext.currentID, ordering: .relaxed)
    ThreadContext.setDrainDepth(ThreadContext.drainDepth + 1)
  }

  /// Processes queued items until the queue is empty, then lets go of the lane.
  @inline(__always)
  private func finishDrain() {
    let me = drainerID.load(ordering: .relaxed)
    while true {
      if word.load(ordering: .relaxed) & Lane.pending != 0 {
        word.bitwiseAnd(~Lane.pending, ordering: .acquiring)
        drainQueue()
      }
      drainerID.store(0, ordering: .relaxed)
      ThreadContext.setDrainDepth(ThreadContext.drainDepth - 1)
      if word.compareExchange(expected: Lane.draining, desired: 0, ordering: .releasing).exchanged {
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
    let item = queue.popFirst()
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
    case .action(let action): process(action, type: type(of: action))
    case .work(let work): work()
    }
    currentDepth = 0
    currentChain = nil
    currentActionType = nil
    currentRoot = 0
    if item.root != 0 { finish(root: item.root) }
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

  // MARK: - Queueing

  private func submit(_ payload: Payload, mode: DispatchMode, file: StaticString, line: UInt) {
    if isCurrentThreadDraining {
      return enqueueFromInside(payload, file: file, line: line)
    }
    switch mode {
    case .async:
      append(payload, completion: .none)
      if claimOrFlag() {
        workerQueue.async {
          self.beginDrain()
          self.finishDrain()
        }
      }
    case .sync:
      // A thread that holds another lane must not wait for this one: the holder of this lane
      // could be waiting for that one. Such a call returns as soon as the item is queued.
      let mayWait = ThreadContext.drainDepth == 0
      let seq = append(payload, completion: mayWait ? .waiter : .none)
      if claimOrFlag() {
        beginDrain()
        finishDrain()
      } else if mayWait {
        // Returns once the action and every action it caused were processed (S2).
        lock.lock()
        while roots[seq] != nil { lock.wait() }
        lock.unlock()
      }
    }
  }

  @discardableResult
  private func append(_ payload: Payload, completion: Completion) -> UInt64 {
    lock.lock()
    let seq = nextSeq
    nextSeq += 1
    var root: UInt64 = 0
    switch completion {
    case .none: break
    case .waiter:
      root = seq
      roots[seq] = RootProgress(outstanding: 1, continuation: nil)
    case .resume(let continuation):
      root = seq
      roots[seq] = RootProgress(outstanding: 1, continuation: continuation)
    }
    queue.append(Item(payload: payload, seq: seq, depth: 0, chain: nil, root: root))
    lock.unlock()
    return seq
  }

  /// Queues an item dispatched by code running on the lane (a reducer, middleware, observer or
  /// lane work): it runs after the current item, before the lane is let go.
  private func enqueueFromInside(_ payload: Payload, file: StaticString, line: UInt) {
    var depth = currentDepth
    var chain = currentChain
    if case .action(let action) = payload {
      if configuration.reentrancy == .reject {
        reporter.report(
          ReportedIssue(
            kind: .reentrantDispatchRejected,
            message:
              "\(type(of: action)) was dispatched from inside the lane '\(configuration.label)', "
              + "whose re-entrancy policy is .reject; the action was dropped.",
            fileID: "\(file)", line: line))
        return
      }
      depth += 1
      chain = ChainLink(type: currentActionType, parent: currentChain)
      if depth > configuration.maxChainDepth {
        reporter.report(
          ReportedIssue(
            kind: .runawayActionChain,
            message:
              "an action chain on '\(configuration.label)' grew past maxChainDepth "
              + "(\(configuration.maxChainDepth)); \(type(of: action)) was dropped. Chain: "
              + ChainLink.describe(chain, then: type(of: action)),
            fileID: "\(file)", line: line))
        return
      }
    }
    lock.lock()
    let seq = nextSeq
    nextSeq += 1
    // The new item belongs to the chain of the item being processed: its waiter waits for it too.
    let root = currentRoot != 0 && roots[currentRoot] != nil ? currentRoot : 0
    if root != 0 { roots[root]?.outstanding += 1 }
    queue.append(Item(payload: payload, seq: seq, depth: depth, chain: chain, root: root))
    lock.unlock()
    word.bitwiseOr(Lane.pending, ordering: .releasing)
  }

  private func waitForCapacity(below bound: Int) async {
    while lock.withLock({ queue.count >= bound }) {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        lock.lock()
        if queue.count < bound {
          lock.unlock()
          continuation.resume()
        } else {
          capacityWaiters.append(continuation)
          lock.unlock()
        }
      }
    }
  }

  // MARK: - Processing

  /// Reduces `action` into every store that handles it, then notifies the stores that changed.
  @inline(__always)
  private func process(_ action: any Action, type actionType: any Action.Type) {
    currentActionType = actionType
    let id = ObjectIdentifier(actionType)
    refreshRouting()
    if id == lastType, let route = lastSingle {
      if route.core.reduceOp(route.core, action, route.slot) { route.core.notifyOp(route.core) }
      return
    }
    let routes = routes(for: id)
    switch routes.count {
    case 0: return
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
    _ = unused  // Released here, outside the lock: a core's deinit may take other locks.
  }

  private func routes(for type: ObjectIdentifier) -> [Route] {
    if type == lastType { return lastRoutes }
    let routes = cachedRouting.byType[type] ?? cachedRouting.everyAction
    lastType = type
    lastRoutes = routes
    lastSingle = routes.count == 1 ? routes[0] : nil
    return routes
  }
}

/// One link of an action chain: the action type that was being processed when the next action
/// was dispatched from inside the lane.
final class ChainLink: @unchecked Sendable {
  // @unchecked Sendable: immutable.
  let type: (any Action.Type)?
  let parent: ChainLink?

  init(type: (any Action.Type)?, parent: ChainLink?) {
    self.type = type
    self.parent = parent
  }

  /// "A → B → A → … → B (64 actions)": the first and last few types of the chain.
  static func describe(_ chain: ChainLink?, then last: any Action.Type) -> String {
    var names = ["\(last)"]
    var link = chain
    while let current = link {
      names.append(current.type.map { "\($0)" } ?? "lane work")
      link = current.parent
    }
    names.reverse()
    let shown =
      names.count <= 12 ? names : names.prefix(6) + ["…"] + names.suffix(6)
    return shown.joined(separator: " → ") + " (\(names.count) actions)"
  }
}
