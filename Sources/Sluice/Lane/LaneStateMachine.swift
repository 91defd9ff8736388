/// Every decision of a lane, as a value: what is queued, who holds the lane, who waits for what.
/// It runs no code of its own (no lock, thread or closure): each input is a `mutating` method
/// returning what the caller does next, which ``LaneStorage`` calls under its one lock.
///
/// ## Vocabulary
/// - An **item** is an action or lane work; items of the *bypass* queue (exclusive actions,
///   lane queries) run before the *main* queue, and alone while a lock holds the lane.
/// - A **root** is an item somebody waits for (a blocked thread, a task in `send`, the drainer);
///   its **chain** is the root and every item dispatched from inside while one of them ran.
/// - The **drainer** is the one thread that runs items: a synchronous caller that finds the lane
///   idle drains its own chain, then hands the lane to a blocked caller or to the worker.
///
/// ## Guarantees (checked by `LaneStateMachineTests` and `LaneInterleavingTests`)
/// - At most one drainer; an item runs once; items leave each queue in arrival order.
/// - A parked thread (``park(_:)``) is woken when its chain is complete, or when every item left
///   in it is held by a lock, or to become the drainer; ``Wake/threads`` names no other thread.
///   The lane is never idle with runnable work.
/// - A running caller never waits for a thread that is not running: a lane handed to the worker
///   or to a blocked caller (the *heir*) that has not started on it is taken by one that comes
///   first.
/// - A batch (``lend(after:upTo:into:)``) stops before its next item when a lock, a bypass item,
///   a retired core or a sender waiting for room asks (``batchStopped``); the rest is requeued.
/// - Armed before-wake hooks (``Step/runHooks``) run before anybody is woken and before the
///   drainer lets go, also when a lock from another thread causes the wake-up.
/// - A retired store core is handed back for release only when no thread can follow a route to
///   it (see ``retire(_:)``), and always by the time the lane is idle.
struct LaneStateMachine<Payload, Resumer, LockID: Hashable, Retiree> {
  typealias Seq = UInt64

  /// What a caller outside the lane does after ``submit(_:bypass:completion:)``.
  enum SubmitAction: Equatable {
    /// Nothing: the item is queued and somebody else processes it (or it waits for a lock).
    case none
    /// The caller holds the lane now: drain.
    case drain
    /// Block until ``park(_:)`` has an answer for this sequence number.
    case wait(Seq)
    /// Start a drain on the worker queue.
    case scheduleWorker
  }

  /// How a caller outside the lane waits for its item.
  enum Completion {
    /// Nobody waits (asynchronous dispatch).
    case none
    /// The calling thread may block until its chain is done.
    case block
    /// The calling thread must not block (it drains another lane): it drains an idle lane only.
    case noBlock
    /// Resume this when the chain is done.
    case resume(Resumer)
  }

  /// What the drainer does next.
  enum Step {
    case run(Item)
    /// Run the armed before-wake hooks (``BeforeWakeHook``), then call ``hooksRan()``: somebody
    /// is to be woken, or the drainer is to let go, with hooks armed.
    case runHooks
    /// The drainer lets go of the lane; `scheduleWorker` when the worker takes it over. It drops
    /// the routes it cached when `retired` is not empty, and releases these after the lock.
    case stop(scheduleWorker: Bool, retired: [Retiree])
  }

  /// Waiters to wake after a transition. A wake of nobody holds no array (saves about 100
  /// instructions of `queue.async1m` per action).
  struct Wake {
    private var someResumers: [Resumer]?
    private var someThreads: [Seq]?

    var resumers: [Resumer] {
      get { someResumers ?? [] }
      set { someResumers = newValue }
    }
    /// The parked threads (by the sequence number they wait for) that have an outcome now.
    var threads: [Seq] {
      get { someThreads ?? [] }
      set { someThreads = newValue }
    }

    var isEmpty: Bool { (someResumers?.isEmpty ?? true) && (someThreads?.isEmpty ?? true) }

    mutating func formUnion(_ other: Wake) {
      // Most transitions wake nobody: skip the generic appends.
      guard !other.isEmpty else { return }
      resumers.append(contentsOf: other.resumers)
      threads.append(contentsOf: other.threads)
    }
  }

  private(set) var main = ChunkedQueue<Item>()
  private(set) var bypass = ChunkedQueue<Item>()
  private(set) var locks: Set<LockID> = []
  private var openRoots = RootTable()
  /// The open roots (a copy, for tests).
  var roots: [Seq: Root] { openRoots.all }
  private(set) var outcomes: [Seq: Outcome] = [:]
  /// The threads asleep until a ``Wake`` names them (see ``park(_:)``).
  private(set) var parked: Set<Seq> = []
  private(set) var drainer = Drainer.none
  /// The senders waiting for room below `maxQueueDepth`, oldest first.
  var capacityWaiters: [Resumer] = []
  /// The places below the bound senders reserved and have not submitted into yet.
  var reservedRoom = 0
  /// Whether the main queue's excursion past the bound was reported (see ``takeOverflow()``).
  var overflowReported = false
  private(set) var nextSeq: Seq = 1
  /// Whether before-wake hooks are armed: until they ran, nobody is woken nor the lane let go.
  private(set) var hooksPending = false
  /// The waiters whose chains ended while hooks were pending: notified once they ran.
  private(set) var notifyAfterHooks: [(seq: Seq, waiter: Waiter)] = []
  /// Whether a lock was taken while hooks were pending: its stuck callers are released after.
  private(set) var releaseStuckAfterHooks = false
  /// The retired cores a drainer may still follow a route to (see ``retire(_:)``).
  var retired: [Retiree] = []
  /// How many items of the main queue the drainer was lent (``lend(after:upTo:into:)``).
  private(set) var lent = 0
  /// Whether the drainer must stop its batch before its next item (see ``stopBatch()``).
  private(set) var batchStopped = false
  /// The most items nobody blocks on that a caller runs after its own chain.
  static var extraBudget: Int { 32 }
  let maxQueueDepth: Int?

  init(maxQueueDepth: Int? = nil) {
    self.maxQueueDepth = maxQueueDepth
  }

  // MARK: - Inputs from outside the lane

  /// Queues an item from a caller that does not hold the lane; `overflow`, for an asynchronous
  /// item of the main queue, is its depth when past `maxQueueDepth` (see ``takeOverflow()``).
  mutating func submit(
    _ payload: Payload, bypass toBypass: Bool, completion: Completion
  ) -> (action: SubmitAction, overflow: Int?) {
    let action = queue(payload, bypass: toBypass, completion: completion)
    guard case .none = completion, !toBypass else { return (action, nil) }
    return (action, takeOverflow())
  }

  private mutating func queue(
    _ payload: Payload, bypass toBypass: Bool, completion: Completion
  ) -> SubmitAction {
    let seq = takeSeq()
    let runnable = toBypass || locks.isEmpty
    switch completion {
    case .none:
      enqueue(Item(payload: payload, seq: seq, root: 0, bypass: toBypass))
      return claimForWorker()
    case .block, .noBlock:
      let mayBlock = if case .block = completion { true } else { false }
      // A thread never waits for an item that cannot run, nor at all when it must not block.
      guard runnable, mayBlock || canClaim else {
        enqueue(Item(payload: payload, seq: seq, root: 0, bypass: toBypass))
        return .none
      }
      openRoot(seq, bypass: toBypass, waiter: canClaim ? .drainer : .thread)
      enqueue(Item(payload: payload, seq: seq, root: seq, bypass: toBypass))
      if canClaim {
        claim(for: seq)
        return .drain
      }
      return .wait(seq)
    case .resume(let resumer):
      openRoot(seq, bypass: toBypass, waiter: .resume(resumer))
      enqueue(Item(payload: payload, seq: seq, root: seq, bypass: toBypass))
      if canClaim, runnable {
        claim(for: seq)
        return .drain
      }
      return .none
    }
  }

  /// The outcome of a blocked thread's wait, forgotten once taken (a thread that takes
  /// ``Outcome/drain`` is the drainer from now on); with none, it parks till a ``Wake`` names it.
  mutating func park(_ seq: Seq) -> Outcome? {
    let outcome = outcomes.removeValue(forKey: seq)
    if outcome == nil { parked.insert(seq) }
    if outcome == .drain {
      // Only the heir has this outcome: a caller that took the lane over withdrew it.
      drainer = .caller(seq)
      if openRoots[seq] != nil { openRoots[seq]?.waiter = .drainer }
    }
    return outcome
  }

  /// Brings the machine up to date with the lock-free shortcut: whether a caller `held` it.
  mutating func syncShortcut(held: Bool) {
    if held, drainer == .none {
      drainer = .fast
    } else if !held, drainer == .fast {
      drainer = .none
    }
  }

  // MARK: - Locks

  /// A lock holds the lane. Blocked threads whose chains can no longer go on are released.
  mutating func pause(_ lock: LockID) -> Wake {
    locks.insert(lock)
    stopBatch()
    return releaseStuckRoots()
  }

  /// How the caller of ``release(_:caller:barrier:)`` relates to the lane.
  enum ReleaseCaller {
    /// The drainer of this lane: the replay runs after its current item.
    case drainer
    /// A thread that may block until the replay is done.
    case block
    /// A thread that must not block: it replays when it finds the lane idle.
    case noBlock
  }

  /// A lock lets go. When it was the last and actions are held, they replay: the caller drains
  /// them (or waits for the drainer to) up to `barrier`, queued after them, with their chains.
  mutating func release(
    _ lock: LockID, caller: ReleaseCaller, barrier: Payload
  ) -> SubmitAction {
    guard locks.remove(lock) != nil, locks.isEmpty, mainDepth > 0 else { return .none }
    if caller == .drainer || (!canClaim && caller != .block) { return .none }
    let seq = takeSeq()
    // The held items nobody waits for join the barrier's chain (with what they dispatch).
    var adopted = 0
    let live = openRoots
    main.updateEach { item in
      if item.root == 0 || live[item.root] == nil {
        item.root = seq
        adopted += 1
      }
    }
    openRoots.open(
      seq,
      Root(outstanding: adopted + 1, inMain: adopted + 1, waiter: canClaim ? .drainer : .thread))
    main.append(Item(payload: barrier, seq: seq, root: seq, bypass: false))
    if canClaim {
      claim(for: seq)
      return .drain
    }
    return .wait(seq)
  }

  // MARK: - Inputs from the drainer

  /// Queues an item dispatched by the running item: it joins the running item's chain. Returns
  /// the overflow to report, as ``submit(_:bypass:completion:)``.
  mutating func submitInside(_ payload: Payload, bypass toBypass: Bool, current root: Seq) -> Int? {
    let seq = takeSeq()
    let owner = root != 0 && openRoots[root] != nil ? root : 0
    if owner != 0 { adjust(owner, outstanding: 1, inMain: toBypass ? 0 : 1) }
    enqueue(Item(payload: payload, seq: seq, root: owner, bypass: toBypass))
    return takeOverflow()
  }

  /// Gives the item a shortcut drainer runs a root (for what it dispatches); returns its number.
  mutating func openFastRoot() -> Seq {
    let seq = takeSeq()
    openRoots.open(seq, Root(outstanding: 1, inMain: 0, waiter: .drainer))
    return seq
  }

  /// The shortcut drainer finished its item (of chain `root`, 0 for none) and could not let go
  /// with the shortcut: it becomes a caller draining its chain.
  mutating func finishFast(root: Seq, hooksArmed: Bool = false) -> (Wake, Step) {
    drainer = .caller(root)
    if hooksArmed { hooksPending = true }
    return next(after: finish(root: root))
  }

  /// The drainer finished `item`; `hooksArmed` when before-wake hooks are armed and not run
  /// (``Step/runHooks`` then comes before any wake-up and before the drainer lets go).
  mutating func finish(_ item: Item, hooksArmed: Bool = false) -> Wake {
    if hooksArmed { hooksPending = true }
    return finish(root: item.root)
  }

  /// Lends the drainer, in `batch` (empty), up to `limit` items of its chain queued right after
  /// `item`: it runs them while ``batchStopped`` is false and no hook is armed, then calls
  /// ``finishLent(_:ran:)``; ``queueDepth`` counts them till then.
  mutating func lend(after item: Item, upTo limit: Int, into batch: inout [Item]) {
    guard limit > 0, case .caller(let seq) = drainer, seq != 0, item.root == seq, !item.bypass,
      bypass.isEmpty, locks.isEmpty, capacityWaiters.isEmpty
    else { return }
    main.moveFront(upTo: limit, into: &batch) { $0.root == seq }
    lent = batch.count
    if lent > 0 { adjust(seq, inMain: -lent) }
  }

  /// The drainer ran the first `ran` items it was lent (`batch`); the others go back to the front
  /// of the main queue. The caller releases `batch` after the lock.
  mutating func finishLent(_ batch: [Item], ran: Int) -> Wake {
    var wake = Wake()
    // Lent items are of the drainer's chain, which a lock's release does not adopt.
    guard lent > 0, case .caller(let root) = drainer else { return wake }
    lent = 0
    batchStopped = false
    if ran < batch.count {
      main.prepend(batch[ran...])
      adjust(root, inMain: batch.count - ran)
    }
    guard ran > 0 else { return wake }
    wakeCapacityWaiters(into: &wake)
    wake.formUnion(finish(root: root, count: ran))
    return wake
  }

  /// Asks the drainer to stop its batch before its next item, if it has one.
  mutating func stopBatch() {
    if lent > 0 { batchStopped = true }
  }

  /// The drainer ran the hooks ``Step/runHooks`` asked for: the waiters held back are woken.
  mutating func hooksRan() -> Wake {
    hooksPending = false
    releaseStuckAfterHooks = false
    var wake = Wake()
    for (seq, waiter) in notifyAfterHooks { notify(seq, waiter: waiter, into: &wake) }
    notifyAfterHooks.removeAll()
    wake.formUnion(releaseStuckRoots())
    return wake
  }

  /// The block of a scheduled worker starts: `false` when a caller took the lane over meanwhile.
  mutating func startWorker() -> Bool {
    guard drainer == .worker(started: false) else { return false }
    drainer = .worker(started: true)
    return true
  }

  /// ``next()`` after a transition that woke `earlier`, who are woken first.
  mutating func next(after earlier: Wake) -> (Wake, Step) {
    var wake = earlier
    let (more, step) = next()
    wake.formUnion(more)
    return (wake, step)
  }

  /// What the drainer does next: runs an item, or lets go (to a blocked caller or the worker
  /// when items can still run).
  mutating func next() -> (Wake, Step) {
    var wake = Wake()
    if !notifyAfterHooks.isEmpty || releaseStuckAfterHooks { return (wake, .runHooks) }
    if case .caller(let seq) = drainer, seq == 0 || openRoots[seq] == nil {
      // The caller's chain is done. It still runs what was queued before: every item a blocked
      // caller waits for (a hand-over per item would wait for each thread to be scheduled), and
      // up to ``extraBudget`` others; then it returns, and somebody else takes the rest.
      drainer = .finishing(horizon: nextSeq, extraLeft: Self.extraBudget)
    }
    if case .finishing = drainer {
      if let item = popQueuedBeforeHorizon(&wake) { return (wake, .run(item)) }
      if hooksPending { return (wake, .runHooks) }
      let step = handOff(&wake)
      return (wake, step)
    }
    if let item = popRunnable(&wake) { return (wake, .run(item)) }
    // Nothing can run: every item left is held by a lock. A caller returns with what is left
    // of its chain held (a task in `send` keeps waiting for it).
    if hooksPending { return (wake, .runHooks) }
    if case .caller(let seq) = drainer, case .drainer? = openRoots[seq]?.waiter {
      openRoots[seq] = nil
    }
    drainer = .none
    return (wake, letGo(scheduleWorker: false))
  }

  // MARK: - Helpers

  /// Adds to the counts of `root`'s chain, if it is open (a read and a write: a modify accessor
  /// allocates its coroutine frame on every call).
  private mutating func adjust(_ root: Seq, outstanding: Int = 0, inMain: Int = 0) {
    guard var progress = openRoots[root] else { return }
    progress.outstanding += outstanding
    progress.inMain += inMain
    openRoots[root] = progress
  }

  private mutating func takeSeq() -> Seq {
    defer { nextSeq &+= 1 }
    return nextSeq
  }

  private mutating func enqueue(_ item: Item) {
    guard item.bypass else { return main.append(item) }
    bypass.append(item)
    stopBatch()
  }

  private mutating func openRoot(_ seq: Seq, bypass toBypass: Bool, waiter: Waiter) {
    openRoots.open(seq, Root(outstanding: 1, inMain: toBypass ? 0 : 1, waiter: waiter))
  }

  /// A running caller takes the lane for the chain of `seq`. An heir that has not woken yet
  /// loses its outcome: it sleeps on as any blocked caller, or returns if its chain ended.
  private mutating func claim(for seq: Seq) {
    if case .heir(let heir) = drainer { outcomes[heir] = openRoots[heir] == nil ? .finished : nil }
    drainer = .caller(seq)
  }

  private mutating func claimForWorker() -> SubmitAction {
    guard drainer == .none, hasRunnable else { return .none }
    drainer = .worker(started: false)
    return .scheduleWorker
  }

  /// `count` items of `root`'s chain were processed.
  private mutating func finish(root: Seq, count: Int = 1) -> Wake {
    var wake = Wake()
    if root != 0, var progress = openRoots[root] {
      progress.outstanding -= count
      if progress.outstanding > 0 {
        openRoots[root] = progress
      } else {
        openRoots[root] = nil
        notify(root, waiter: progress.waiter, into: &wake)
      }
    }
    if !locks.isEmpty { wake.formUnion(releaseStuckRoots()) }
    return wake
  }

  /// Releases the blocked threads whose every remaining item a lock holds in the main queue
  /// (tasks in `send` block no thread, and wait on; the drainer finds out at its next step).
  private mutating func releaseStuckRoots() -> Wake {
    var wake = Wake()
    guard !locks.isEmpty else { return wake }
    if hooksPending {
      // Decided once the hooks ran: the lock may be gone by then.
      releaseStuckAfterHooks = true
      return wake
    }
    for (seq, progress) in openRoots.all where progress.outstanding == progress.inMain {
      guard case .thread = progress.waiter else { continue }
      openRoots[seq] = nil
      notify(seq, waiter: progress.waiter, into: &wake)
    }
    return wake
  }

  private mutating func notify(_ seq: Seq, waiter: Waiter, into wake: inout Wake) {
    if hooksPending {
      if case .drainer = waiter { return }
      notifyAfterHooks.append((seq, waiter))
      return
    }
    switch waiter {
    case .thread:
      // The heir keeps its outcome: it drains, finds its chain done, and hands the lane on.
      if drainer != .heir(seq) { outcomes[seq] = .finished }
      if parked.remove(seq) != nil { wake.threads.append(seq) }
    case .resume(let resumer): wake.resumers.append(resumer)
    case .drainer: break
    }
  }

  /// The next runnable item queued before the finishing caller's horizon, of a blocked caller
  /// or within budget.
  private mutating func popQueuedBeforeHorizon(_ wake: inout Wake) -> Item? {
    guard case .finishing(let horizon, let extraLeft) = drainer,
      let item = bypass.first ?? (locks.isEmpty ? main.first : nil), item.seq < horizon
    else { return nil }
    if case .thread? = openRoots[item.root]?.waiter {
      // A blocked caller's item: always.
    } else if extraLeft > 0 {
      drainer = .finishing(horizon: horizon, extraLeft: extraLeft - 1)
    } else {
      return nil
    }
    return popRunnable(&wake)
  }

  /// Takes the first runnable item: the bypass queue's, else the main queue's unless paused.
  private mutating func popRunnable(_ wake: inout Wake) -> Item? {
    if let item = bypass.popFirst() { return item }
    guard locks.isEmpty, let item = main.popFirst() else { return nil }
    if item.root != 0 { adjust(item.root, inMain: -1) }
    wakeCapacityWaiters(into: &wake)
    return item
  }

  /// The drainer's chain is done: it lets go, to the oldest blocked caller or to the worker.
  private mutating func handOff(_ wake: inout Wake) -> Step {
    guard hasRunnable else {
      drainer = .none
      return letGo(scheduleWorker: false)
    }
    var heir: Seq?
    for (seq, progress) in openRoots.all {
      if case .thread = progress.waiter, heir.map({ seq < $0 }) ?? true { heir = seq }
    }
    if let heir {
      // Offered, not given: a caller that comes before the heir runs takes the lane instead.
      outcomes[heir] = .drain
      drainer = .heir(heir)
      if parked.remove(heir) != nil { wake.threads.append(heir) }
      return letGo(scheduleWorker: false)
    }
    drainer = .worker(started: false)
    return letGo(scheduleWorker: true)
  }
}
