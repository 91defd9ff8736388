@testable import Sluice

/// A model of threads using a ``LaneStateMachine`` the way ``Lane`` does, explored over every
/// interleaving of their steps. Each step is one transition the real lane makes atomically: one
/// call into the machine under the lock, or one compare-and-swap of the shortcut.
///
/// Items are named; a script says what an item does when it runs (dispatch from inside, take or
/// release a lock, ask for an exclusive action). The explorer checks, in every reachable state:
/// at most one thread drains; the lane is never idle while an item could run; a blocked thread
/// never waits for an item that cannot run; items leave each queue in arrival order and run
/// once; a synchronous call returns only when its chain was processed or what is left of it is
/// held by a lock; a thread is signalled only while parked, and never sleeps with an outcome; a task in `send` resumes after its whole chain; neither returns, nor does the
/// drainer let go, before the before-wake hooks armed in that chain ran; no store core is released
/// while a route to it is cached or followed, nor kept while no thread runs the lane. And in
/// every final state: every thread returned (no deadlock), every item ran, every task resumed,
/// every detached core was released, nothing is left.
///
/// Stores (cores, by name) are modelled when a scenario names some: each item then first
/// refreshes the routes the drainer caches (when the routing changed since) and follows them
/// until it finishes; a detach rebuilds the routing without the core and retires it.
struct LaneModel {
  typealias Machine = LaneStateMachine<String, String, Int, String>

  /// What an item does when it runs, one lane transition per step.
  enum Inside: Hashable {
    case dispatch(String)
    case dispatchBypass(String)
    case pause(Int)
    case release(Int)
    /// Arms a before-wake hook (a write-through store changed).
    case armHook
    /// Detaches a store (its last reference was dropped on the lane's thread).
    case detach(String)
  }

  /// What a thread does from outside the lane.
  enum Op: Hashable {
    /// A synchronous dispatch (tries the shortcut first).
    case sync(String)
    /// A synchronous dispatch from a thread that drains another lane: it must not block.
    case syncFromOtherLane(String)
    case async(String)
    /// `await send`: a task that is resumed when the chain is done.
    case send(String)
    case pause(Int)
    case release(Int)
    /// `exclusive(action)`: takes the lock, then dispatches the action past the pause.
    case exclusive(String, lock: Int)
    /// Detaches a store (its last reference was dropped on this thread).
    case detach(String)
  }

  struct Running: Hashable {
    var name: String
    var seq: UInt64
    var root: UInt64
    var bypass: Bool
    var shortcut: Bool
    var step = 0
    /// The stores the item's routes lead to; `nil` until it refreshed the cached routes.
    var routes: Set<String>?
    /// The items lent with the first of the batch, not run yet (names and sequence numbers), and
    /// how many lent items ran.
    var lentNames: [String] = []
    var lentSeqs: [UInt64] = []
    var lentRan = 0
  }

  enum Phase: Hashable {
    case ready
    /// The shortcut failed: the locked submit comes next.
    case submitting
    /// An exclusive action's lock is held: its dispatch comes next.
    case submittingExclusive
    /// Between the submit and the wait: the thread parks (``LaneStateMachine/park(_:)``) and
    /// sleeps, unless it has an outcome already.
    case aboutToBlock(UInt64)
    /// Asleep on its own condition; it wakes only when a transition signals it, and parks again
    /// unless it has an outcome.
    case blocked(UInt64, signalled: Bool)
    case suspended(String)
    case draining(Running?)
    /// A worker block is queued; when it runs it asks the machine whether it is still needed.
    case workerScheduled
    case done
  }

  struct Thread: Hashable {
    var ops: [Op]
    var pc = 0
    var phase = Phase.ready
    var isWorker = false
    /// The root a shortcut item opened when it dispatched from inside.
    var shortcutRoot: UInt64 = 0
    /// The sequence number the thread blocked for, while its operation lasts (0: none).
    var waitedFor: UInt64 = 0

    var op: Op? { pc < ops.count ? ops[pc] : nil }
  }

  struct World {
    var machine: Machine
    var threads: [Thread]
    var processed: Set<String> = []
    var resumed: Set<String> = []
    var dispatched: Set<String> = []
    var children: [String: [String]] = [:]
    var lastMainSeq: UInt64 = 0
    var lastBypassSeq: UInt64 = 0
    var barriers = 0
    var cleanedUp = false
    var violations: [String] = []
    var checkedOutcomes: Set<UInt64> = []
    /// The items that armed a hook since the hooks last ran (their change is not written yet).
    var unwritten: Set<String> = []
    /// The stores in the lane's routing, and how often the routing was rebuilt.
    var attached: [String] = []
    var routingVersion = 0
    /// The routes the drainer cached (`nil`: dropped) and the routing version they are of.
    var cached: Set<String>?
    var cachedVersion = -1
    var detached: Set<String> = []
    var released: Set<String> = []
    /// Whether the main queue's current excursion past the bound was reported.
    var overflowReported = false
  }

  /// A fault injected into the model, to check that the explorer finds it.
  enum Fault: Sendable {
    /// Transitions never wake blocked threads.
    case dropBroadcasts
    /// A blocked thread is told to return as soon as it blocks.
    case finishEveryWaiterAtOnce
    /// The drainer never tells the machine that hooks are armed (it decides on its own when to
    /// run them, as the lane did before issue 24).
    case hooksUnknownToMachine
    /// A detached core is released at once, without asking the machine whether a thread runs
    /// the lane.
    case releaseDetachedAtOnce
    /// The drainer lets go without releasing the cores the machine hands back.
    case keepRetiredAtLetGo
    /// The drainer runs its whole batch, whatever the machine asks (``LaneStateMachine/batchStopped``).
    case batchIgnoresPause
    /// Submits never learn of an overflow (as when the lane asked the machine in a separate call).
    case overflowUnreported
    /// A thread sleeps without parking in the machine, when it finds no outcome (as when the
    /// lane kept its parked threads beside the machine).
    case sleepsUnparked
  }

  let scripts: [String: [Inside]]
  /// The stores attached when the scenario starts (none: routes are not modelled).
  let stores: [String]
  let fault: Fault?
  /// The most items the drainer runs per transition (1: no batches).
  let batch: Int
  private(set) var failures: [String] = []
  private(set) var statesVisited = 0
  private(set) var finalStates = 0
  private var seen: Set<Int> = []

  init(
    scripts: [String: [Inside]] = [:], stores: [String] = [], batch: Int = 1, fault: Fault? = nil
  ) {
    self.scripts = scripts
    self.stores = stores
    self.batch = batch
    self.fault = fault
  }

  /// Explores every interleaving of `threads`; returns the first few failures.
  mutating func explore(_ threads: [[Op]], maxQueueDepth: Int? = nil) {
    let world = World(
      machine: Machine(maxQueueDepth: maxQueueDepth),
      threads: threads.map { Thread(ops: $0) }, attached: stores)
    visit(world, trace: [])
  }

  private mutating func visit(_ world: World, trace: [String]) {
    guard failures.count < 5 else { return }
    // Before the state is looked up: a step that broke a promise can lead to a state reached
    // without breaking it (the fingerprint leaves the violations out).
    for violation in world.violations { record(violation, trace) }
    guard world.violations.isEmpty else { return }
    guard seen.insert(fingerprint(world)).inserted else { return }
    statesVisited += 1
    check(world, trace: trace)
    var moved = false
    for index in world.threads.indices where mayMove(world.threads[index], in: world) {
      var next = world
      guard let label = step(&next, index) else { continue }
      moved = true
      visit(next, trace: trace + ["t\(index): \(label)"])
    }
    if !moved { finish(world, trace: trace) }

  }

  // MARK: - Steps

  /// A cheap look at whether `thread` can take a step, so a copy of the world is made only for
  /// the threads that can.
  private func mayMove(_ thread: Thread, in world: World) -> Bool {
    switch thread.phase {
    case .done: return false
    case .blocked(_, let signalled): return signalled
    case .suspended(let name): return world.resumed.contains(name)
    default: return true
    }
  }

  /// Makes thread `index` take one step; returns a label, or `nil` when it cannot move.
  private func step(_ world: inout World, _ index: Int) -> String? {
    var thread = world.threads[index]
    defer { world.threads[index] = thread }
    if let bound = world.machine.maxQueueDepth, world.machine.mainDepth <= bound {
      world.overflowReported = false
    }
    switch thread.phase {
    case .done: return nil
    case .aboutToBlock(let seq):
      if fault == .finishEveryWaiterAtOnce {
        checkReturn(of: thread.op ?? .pause(0), &world)
        thread.waitedFor = 0
        thread.pc += 1
        thread.phase = .ready
        return "returns at once (fault)"
      }
      return park(seq, &world, &thread) ?? "sleeps on \(seq)"
    case .blocked(let seq, let signalled):
      guard signalled else { return nil }
      return park(seq, &world, &thread) ?? "wakes for nothing"
    case .suspended(let name):
      guard world.resumed.contains(name) else { return nil }
      thread.pc += 1
      thread.phase = .ready
      return "resumed \(name)"
    case .workerScheduled:
      if world.machine.startWorker() {
        thread.phase = .draining(nil)
        return "worker starts"
      }
      thread.phase = .done
      return "worker not needed"
    case .draining(nil):
      let (wake, step) = world.machine.next()
      apply(wake, to: &world)
      return drainStep(step, &world, &thread)
    case .draining(var running?):
      if running.routes == nil {
        refreshRoutes(&world)
        running.routes = world.cached
        thread.phase = .draining(running)
        return "\(running.name) follows routes to \(world.cached?.sorted() ?? [])"
      }
      let script = scripts[running.name] ?? []
      if running.step < script.count {
        let inside = script[running.step]
        running.step += 1
        thread.phase = .draining(running)
        runInside(inside, running: running, &world, &thread)
        return "\(running.name) does \(inside)"
      }
      if running.shortcut {
        // A chain of one item runs its hooks before it lets go, without the machine.
        if thread.shortcutRoot == 0 { world.unwritten.removeAll() }
        if world.machine.drainer == .fast, !world.machine.needsAttention {
          world.machine.syncShortcut(held: false)
          returnFromOp(&world, &thread)
          return "\(running.name) ends the shortcut"
        }
        let (wake, step) = world.machine.finishFast(
          root: thread.shortcutRoot, hooksArmed: hooksArmed(world))
        thread.shortcutRoot = 0
        thread.phase = .draining(nil)
        apply(wake, to: &world)
        return "\(running.name) finishes through the machine, " + drainStep(step, &world, &thread)
      }
      if !running.lentNames.isEmpty, world.unwritten.isEmpty,
        fault == .batchIgnoresPause || !world.machine.batchStopped
      {
        // The next item of the batch, after one atomic load of the machine's stop request.
        let name = running.lentNames.removeFirst()
        running.seq = running.lentSeqs.removeFirst()
        running.name = name
        running.step = 0
        running.routes = stores.isEmpty ? [] : nil
        running.lentRan += 1
        startItem(name, seq: running.seq, bypass: false, &world)
        thread.phase = .draining(running)
        return "runs lent \(name)"
      }
      var wake = world.machine.finish(
        Machine.Item(
          payload: running.name, seq: running.seq, root: running.root, bypass: running.bypass),
        hooksArmed: hooksArmed(world))
      let unrun = zip(running.lentNames, running.lentSeqs).map {
        Machine.Item(payload: $0, seq: $1, root: running.root, bypass: false)
      }
      wake.formUnion(
        world.machine.finishLent(
          Array(
            repeating: Machine.Item(payload: "", seq: 0, root: 0, bypass: false),
            count: running.lentRan) + unrun, ran: running.lentRan))
      let (more, step) = world.machine.next()
      wake.formUnion(more)
      apply(wake, to: &world)
      thread.phase = .draining(nil)
      return "\(running.name) finished, " + drainStep(step, &world, &thread)
    case .ready:
      guard let op = thread.op else {
        thread.phase = .done
        return "done"
      }
      return start(op, &world, &thread)
    case .submitting:
      guard let op = thread.op else { return nil }
      switch op {
      case .sync(let name), .syncFromOtherLane(let name):
        world.dispatched.insert(name)
        let blocks = op == .sync(name)
        let (action, overflow) = world.machine.submit(
          name, bypass: false, completion: blocks ? .block : .noBlock)
        checkOverflow(overflow, reports: false, &world)
        carryOut(action, &world, &thread)
        return "submits \(name): \(action)"
      case .send(let name):
        world.dispatched.insert(name)
        let (action, overflow) = world.machine.submit(
          name, bypass: false, completion: .resume(name))
        checkOverflow(overflow, reports: false, &world)
        carryOut(action, &world, &thread)
        return "sends \(name): \(action)"
      default: return nil
      }
    case .submittingExclusive:
      guard case .exclusive(let name, _) = thread.op else { return nil }
      world.dispatched.insert(name)
      let (action, overflow) = world.machine.submit(name, bypass: true, completion: .block)
      checkOverflow(overflow, reports: false, &world)
      carryOut(action, &world, &thread)
      return "submits exclusive \(name): \(action)"
    }
  }

  /// The thread parks, or takes its outcome; `nil` when it sleeps.
  private func park(_ seq: UInt64, _ world: inout World, _ thread: inout Thread) -> String? {
    let outcome: Machine.Outcome?
    if fault == .sleepsUnparked, world.machine.outcomes[seq] == nil {
      outcome = nil
    } else {
      outcome = world.machine.park(seq)
    }
    guard let outcome else {
      thread.phase = .blocked(seq, signalled: false)
      return nil
    }
    if outcome == .drain {
      thread.phase = .draining(nil)
      return "woken to drain"
    }
    // Its chain was checked when the outcome was given (``apply(_:to:)``).
    returnFromOp(&world, &thread, checkChain: false)
    return "woken: finished"
  }

  private func start(_ op: Op, _ world: inout World, _ thread: inout Thread) -> String {
    switch op {
    case .sync(let name), .syncFromOtherLane(let name), .send(let name):
      // The shortcut: one compare-and-swap of a word that is 0 only when the machine is idle
      // and nothing needs the lock.
      if world.machine.isIdle, !world.machine.needsAttention {
        world.machine.syncShortcut(held: true)
        world.dispatched.insert(name)
        world.processed.insert(name)
        thread.phase = .draining(
          Running(
            name: name, seq: 0, root: 0, bypass: false, shortcut: true,
            routes: stores.isEmpty ? [] : nil))
        if case .send = op { world.resumed.insert(name) }
        return "shortcut \(name)"
      }
      thread.phase = .submitting
      return "shortcut refused for \(name)"
    case .async(let name):
      world.dispatched.insert(name)
      let (action, overflow) = world.machine.submit(name, bypass: false, completion: .none)
      checkOverflow(overflow, &world)
      if action == .scheduleWorker { spawnWorker(&world) }
      thread.pc += 1
      return "async \(name): \(action)"
    case .pause(let lock):
      apply(world.machine.pause(lock), to: &world)
      thread.pc += 1
      return "pause \(lock)"
    case .release(let lock):
      world.barriers += 1
      let barrier = "barrier\(world.barriers)"
      let action = world.machine.release(lock, caller: .block, barrier: barrier)
      if action != .none { world.dispatched.insert(barrier) }
      carryOut(action, &world, &thread)
      return "release \(lock): \(action)"
    case .exclusive(_, let lock):
      apply(world.machine.pause(lock), to: &world)
      thread.phase = .submittingExclusive
      return "exclusive takes \(lock)"
    case .detach(let name):
      detach(name, &world)
      thread.pc += 1
      return "detach \(name)"
    }
  }

  private func carryOut(
    _ action: Machine.SubmitAction, _ world: inout World, _ thread: inout Thread
  ) {
    switch action {
    case .none:
      if case .send(let name) = thread.op, !world.resumed.contains(name) {
        thread.phase = .suspended(name)
      } else {
        returnFromOp(&world, &thread)
      }
    case .drain: thread.phase = .draining(nil)
    case .wait(let seq):
      if holderIsAsleep(world) {
        fail("a running caller waits for a lane handed to a thread that is not running", &world)
      }
      thread.phase = .aboutToBlock(seq)
      thread.waitedFor = seq
    case .scheduleWorker:
      spawnWorker(&world)
      returnFromOp(&world, &thread)
    }
  }

  private func drainStep(
    _ step: Machine.Step, _ world: inout World, _ thread: inout Thread
  ) -> String {
    switch step {
    case .run(let item):
      startItem(item.payload, seq: item.seq, bypass: item.bypass, &world)
      var lent: [Machine.Item] = []
      world.machine.lend(after: item, upTo: batch - 1, into: &lent)
      thread.phase = .draining(
        Running(
          name: item.payload, seq: item.seq, root: item.root, bypass: item.bypass,
          shortcut: false, routes: stores.isEmpty ? [] : nil, lentNames: lent.map(\.payload),
          lentSeqs: lent.map(\.seq)))
      return "runs \(item.payload)" + (lent.isEmpty ? "" : ", lent \(lent.map(\.payload))")
    case .runHooks:
      world.unwritten.removeAll()
      var wake = world.machine.hooksRan()
      let (more, next) = world.machine.next()
      wake.formUnion(more)
      apply(wake, to: &world)
      return "runs the hooks, " + drainStep(next, &world, &thread)
    case .stop(let scheduleWorker, let retired):
      if !retired.isEmpty, fault != .keepRetiredAtLetGo {
        // The drainer drops the routes it cached, then releases the cores.
        world.cached = nil
        world.released.formUnion(retired)
      }
      if !world.unwritten.isEmpty {
        fail("the drainer let go before the hooks armed by \(world.unwritten.sorted()) ran", &world)
      }
      if scheduleWorker { spawnWorker(&world) }
      if thread.isWorker {
        thread.phase = .done
      } else if case .send(let name) = thread.op, !world.resumed.contains(name) {
        thread.phase = .suspended(name)
      } else {
        returnFromOp(&world, &thread)
      }
      return "stops\(scheduleWorker ? " (worker)" : "")"
    }
  }

  /// An item starts: once, in its queue's order, and a main item only when no lock holds the
  /// lane and no bypass item waits.
  private func startItem(_ name: String, seq: UInt64, bypass: Bool, _ world: inout World) {
    if world.processed.contains(name) { fail("\(name) ran twice", &world) }
    if bypass {
      if seq <= world.lastBypassSeq { fail("bypass queue out of order", &world) }
      world.lastBypassSeq = seq
    } else {
      if seq <= world.lastMainSeq { fail("main queue out of order", &world) }
      world.lastMainSeq = seq
      if world.machine.isPaused { fail("\(name) ran while a lock holds the lane", &world) }
      if !world.machine.bypass.isEmpty { fail("\(name) ran before the bypass items", &world) }
    }
    world.processed.insert(name)
  }

  private func runInside(
    _ inside: Inside, running: Running, _ world: inout World, _ thread: inout Thread
  ) {
    switch inside {
    case .dispatch(let name), .dispatchBypass(let name):
      // A shortcut item's chain gets its root when it first dispatches from inside.
      var root = running.root
      if running.shortcut {
        if thread.shortcutRoot == 0 { thread.shortcutRoot = world.machine.openFastRoot() }
        root = thread.shortcutRoot
      }
      world.dispatched.insert(name)
      world.children[running.name, default: []].append(name)
      checkOverflow(
        world.machine.submitInside(name, bypass: inside == .dispatchBypass(name), current: root),
        &world)
    case .pause(let lock):
      apply(world.machine.pause(lock), to: &world)
    case .release(let lock):
      let action = world.machine.release(lock, caller: .drainer, barrier: "unused")
      if action != .none { fail("a release by the drainer asked it to \(action)", &world) }
    case .armHook:
      world.unwritten.insert(running.name)
    case .detach(let name):
      detach(name, &world)
    }
  }

  /// One locked transition: the routing is rebuilt without `name`, and its core retired.
  private func detach(_ name: String, _ world: inout World) {
    world.attached.removeAll { $0 == name }
    world.routingVersion += 1
    world.detached.insert(name)
    if fault == .releaseDetachedAtOnce {
      world.cached = nil
      world.released.insert(name)
    } else if let core = world.machine.retire(name) {
      // Handed back: the routes the drainer cached are dropped, then the core released.
      world.cached = nil
      world.released.insert(core)
    }
  }

  /// The drainer picks up the lane's routing when it changed; what the machine hands back then
  /// is released once the old routes are dropped.
  private func refreshRoutes(_ world: inout World) {
    guard world.cachedVersion != world.routingVersion || world.cached == nil else { return }
    let unused = world.machine.routesReplaced()
    world.cached = Set(world.attached)
    world.cachedVersion = world.routingVersion
    world.released.formUnion(unused)
  }

  /// What the drainer tells the machine when it finishes an item: whether hooks are armed.
  private func hooksArmed(_ world: World) -> Bool {
    fault != .hooksUnknownToMachine && !world.unwritten.isEmpty
  }

  /// Whether the lane was handed to a thread that has not run since: a scheduled worker, or a
  /// blocked caller woken to drain that has not taken its outcome.
  private func holderIsAsleep(_ world: World) -> Bool {
    switch world.machine.drainer {
    case .worker(started: false), .heir: return true
    case .caller(let seq): return world.machine.outcomes[seq] == .drain
    case .none, .fast, .finishing, .worker(started: true): return false
    }
  }

  private func spawnWorker(_ world: inout World) {
    world.threads.append(Thread(ops: [], phase: .workerScheduled, isWorker: true))
  }

  /// Signals the threads `wake` names, each of which must be parked (asleep, not signalled).
  private func apply(_ wake: Machine.Wake, to world: inout World) {
    for seq in wake.threads where fault != .dropBroadcasts {
      let asleep = Phase.blocked(seq, signalled: false)
      guard let index = world.threads.firstIndex(where: { $0.phase == asleep }) else {
        fail("thread \(seq) signalled, which is not parked", &world)
        continue
      }
      world.threads[index].phase = .blocked(seq, signalled: true)
    }
    // A blocked thread's return is decided when it is told to return, or, as the heir, when a
    // lock released it (its root closed with the lane handed to it; S12: it may return before
    // what the lock held, though it drains first): its chain is checked then.
    for thread in world.threads {
      switch thread.phase {
      case .blocked(let seq, _), .aboutToBlock(let seq):
        let outcome = world.machine.outcomes[seq]
        let decided = outcome == .finished || (outcome == .drain && world.machine.roots[seq] == nil)
        if decided, let op = thread.op, world.checkedOutcomes.insert(seq).inserted {
          checkReturn(of: op, &world)
        }
      default: continue
      }
    }
    for name in wake.resumers {
      if !world.resumed.insert(name).inserted { fail("\(name) resumed twice", &world) }
      let left = chain(of: name, in: world).filter { !world.processed.contains($0) }
      if !left.isEmpty { fail("send(\(name)) resumed before \(left) ran", &world) }
      checkWritten(name, &world)
    }
  }

  /// The thread's current operation returns.
  private func returnFromOp(
    _ world: inout World, _ thread: inout Thread, checkChain: Bool = true
  ) {
    // An heir a lock released was checked then.
    let checked = world.checkedOutcomes.contains(thread.waitedFor)
    if checkChain, !checked, let op = thread.op { checkReturn(of: op, &world) }
    thread.waitedFor = 0
    thread.pc += 1
    thread.phase = .ready
  }

  /// S2: a synchronous call returns when its chain was processed, or when what is left of it
  /// is held by a lock.
  private func checkReturn(of op: Op, _ world: inout World) {
    guard case .sync(let name) = op else {
      guard case .exclusive(let name, _) = op else { return }
      return checkChain(of: name, &world)
    }
    checkChain(of: name, &world)
  }

  /// A caller sees its chain's changes written: no item of the chain armed a hook that has not
  /// run.
  private func checkWritten(_ name: String, _ world: inout World) {
    let unwritten = chain(of: name, in: world).filter { world.unwritten.contains($0) }
    if !unwritten.isEmpty {
      fail("\(name) returned before the hooks armed by \(unwritten) ran", &world)
    }
  }

  private func checkChain(of name: String, _ world: inout World) {
    checkWritten(name, &world)
    let queued = Set(world.machine.main.elements.map(\.payload))
    for item in chain(of: name, in: world) where !world.processed.contains(item) {
      if !(world.machine.isPaused && queued.contains(item)) {
        fail("\(name) returned before \(item) ran, though \(item) could run", &world)
      }
    }
  }

  private func chain(of name: String, in world: World) -> [String] {
    var result: [String] = []
    var stack = [name]
    while let next = stack.popLast() {
      result.append(next)
      stack.append(contentsOf: world.children[next] ?? [])
    }
    return result
  }

  // MARK: - Checks

  private mutating func check(_ world: World, trace: [String]) {
    let machine = world.machine
    let draining = world.threads.filter {
      if case .draining = $0.phase { return true }
      return false
    }
    if draining.count > 1 { record("two threads drain at once", trace) }
    for case .draining(let running?) in draining.map(\.phase) {
      let followed = (running.routes ?? []).intersection(world.released)
      if !followed.isEmpty { record("released \(followed.sorted()) while routes to it run", trace) }
    }
    if let cached = world.cached, !cached.isDisjoint(with: world.released) {
      record("released a core the drainer's cached routes lead to", trace)
    }
    if machine.canClaim, !machine.retired.isEmpty {
      record("retired cores kept while no thread runs the lane", trace)
    }
    if machine.hasRunnable, machine.isIdle { record("the lane is idle with runnable items", trace) }
    var asleep: Set<UInt64> = []
    for thread in world.threads {
      let seq: UInt64
      switch thread.phase {
      case .blocked(let waiting, let signalled):
        seq = waiting
        if !signalled { asleep.insert(seq) }
        if !signalled, machine.outcomes[seq] != nil {
          record("thread \(seq) sleeps with its outcome and was not signalled", trace)
        }
      case .aboutToBlock(let waiting): seq = waiting
      default: continue
      }
      guard machine.outcomes[seq] == nil else { continue }
      // Its chain is done; it is woken once the before-wake hooks ran.
      if machine.notifyAfterHooks.contains(where: { $0.seq == seq }) { continue }
      guard let root = machine.roots[seq] else {
        record("a thread waits for root \(seq), which is gone", trace)
        continue
      }
      // While hooks are pending, the callers a lock holds are released once they ran.
      if machine.isPaused, root.outstanding == root.inMain, !machine.hooksPending {
        record("a thread waits for root \(seq), whose items a lock holds", trace)
      }
    }
    if asleep != machine.parked, fault != .sleepsUnparked, fault != .dropBroadcasts {
      record("parked in the machine: \(machine.parked.sorted()), asleep: \(asleep.sorted())", trace)
    }
  }

  private mutating func finish(_ world: World, trace: [String]) {
    let stuck = world.threads.contains { $0.phase != .done }
    if world.machine.isPaused, !world.cleanedUp {
      // Release what the scenario left held, from a new thread, and go on: a task in `send`
      // waits for the release by design.
      var next = world
      next.cleanedUp = true
      next.threads.append(Thread(ops: world.machine.locks.sorted().map { .release($0) }))
      visit(next, trace: trace + ["cleanup"])
      return
    }
    if stuck {
      record("deadlock: no thread can move", trace)
      return
    }
    finalStates += 1
    let machine = world.machine
    if machine.queueDepth != 0 { record("items left in the queues", trace) }
    if !machine.roots.isEmpty { record("roots left: \(machine.roots.keys.sorted())", trace) }
    if !machine.outcomes.isEmpty { record("outcomes nobody took", trace) }
    if !machine.isIdle { record("a drainer is left: \(machine.drainer)", trace) }
    let kept = world.detached.subtracting(world.released)
    if !kept.isEmpty { record("never released: \(kept.sorted())", trace) }
    let lost = world.dispatched.subtracting(world.processed)
    if !lost.isEmpty, !machine.isPaused { record("never ran: \(lost.sorted())", trace) }
    for thread in world.threads {
      for case .send(let name) in thread.ops where !world.resumed.contains(name) {
        record("send(\(name)) never resumed", trace)
      }
    }
  }

  /// Notes a broken promise; ``check(_:trace:)`` records it with the trace that led there.
  /// A submit's overflow: reported once per excursion of the main queue past the bound, with
  /// its depth, and never within the bound; only by a submit that `reports` (an asynchronous
  /// one, or one from inside the lane).
  private func checkOverflow(_ overflow: Int?, reports: Bool = true, _ world: inout World) {
    let depth = world.machine.mainDepth
    guard let bound = world.machine.maxQueueDepth, reports else {
      if overflow != nil {
        fail("overflow \(overflow ?? 0) reported by a submit that does not", &world)
      }
      return
    }
    if let overflow, fault != .overflowUnreported {
      if overflow != depth || depth <= bound || world.overflowReported {
        fail("overflow \(overflow) reported at depth \(depth) (bound \(bound))", &world)
      }
      world.overflowReported = true
    } else if depth > bound, !world.overflowReported {
      fail("the queue is \(depth) deep, past its bound \(bound), and nobody reported it", &world)
    }
  }

  private func fail(_ message: String, _ world: inout World) {
    world.violations.append(message)
  }

  private mutating func record(_ message: String, _ trace: [String]) {
    failures.append(message + "\n  " + trace.joined(separator: "\n  "))
  }

  /// A hash of everything that decides what can happen next (64 bits: a collision, which would
  /// skip a state, is vanishingly unlikely at these sizes).
  private func fingerprint(_ world: World) -> Int {
    var hasher = Hasher()
    let machine = world.machine
    for queue in [machine.main, machine.bypass] {
      hasher.combine(queue.count)
      for item in queue.elements {
        hasher.combine(item.payload)
        hasher.combine(item.seq)
        hasher.combine(item.root)
      }
    }
    hasher.combine(machine.locks)
    for (seq, root) in machine.roots.sorted(by: { $0.key < $1.key }) {
      hasher.combine(seq)
      hasher.combine(root.outstanding)
      hasher.combine(root.inMain)
      switch root.waiter {
      case .thread: hasher.combine(0)
      case .drainer: hasher.combine(1)
      case .resume(let name): hasher.combine(name)
      }
    }
    for (seq, outcome) in machine.outcomes.sorted(by: { $0.key < $1.key }) {
      hasher.combine(seq)
      hasher.combine(outcome == .drain)
    }
    switch machine.drainer {
    case .none: hasher.combine(-1)
    case .fast: hasher.combine(-2)
    case .worker(let started): hasher.combine(started ? -3 : -4)
    case .caller(let seq): hasher.combine(seq)
    case .finishing(let horizon, let extraLeft):
      hasher.combine(-6)
      hasher.combine(horizon)
      hasher.combine(extraLeft)
    case .heir(let seq):
      hasher.combine(-5)
      hasher.combine(seq)
    }
    hasher.combine(machine.nextSeq)
    hasher.combine(machine.parked)
    hasher.combine(machine.capacityWaiters)
    hasher.combine(machine.lent)
    hasher.combine(machine.batchStopped)
    for thread in world.threads {
      // The operations never change: where each thread is says it all.
      hasher.combine(thread.pc)
      hasher.combine(thread.phase)
      hasher.combine(thread.isWorker)
      hasher.combine(thread.shortcutRoot)
      hasher.combine(thread.waitedFor)
    }
    hasher.combine(world.processed)
    hasher.combine(world.resumed)
    hasher.combine(world.lastMainSeq)
    hasher.combine(world.lastBypassSeq)
    hasher.combine(world.cleanedUp)
    hasher.combine(world.checkedOutcomes)
    hasher.combine(world.unwritten)
    hasher.combine(machine.hooksPending)
    hasher.combine(machine.notifyAfterHooks.map(\.seq))
    hasher.combine(machine.releaseStuckAfterHooks)
    hasher.combine(machine.retired)
    hasher.combine(world.attached)
    hasher.combine(world.routingVersion)
    hasher.combine(world.cached)
    hasher.combine(world.cachedVersion)
    hasher.combine(world.released)
    hasher.combine(world.overflowReported)
    hasher.combine(machine.overflowReported)
    return hasher.finalize()
  }
}
