extension Lane {
  typealias Machine = LaneStorage.Machine

  /// Runs `body` as the item of a lane claimed through the shortcut, then lets go (through the
  /// machine when the closing compare-and-swap fails).
  @inline(__always)
  func runShortcut(_ body: () -> Void) {
    beginDrain()
    inShortcut = true
    body()
    inShortcut = false
    // For a chain, the machine asks for the armed hooks at its end (see `finishShortcut`).
    if !armedHooks.isEmpty, currentRoot == 0 { runArmedHooks() }
    endDrain()
    if storage.endShortcut() { return }
    finishShortcut()
  }

  /// The shortcut's holder could not let go with the compare-and-swap: the machine decides.
  @inline(never)
  private func finishShortcut() {
    beginDrain()
    let root = currentRoot
    currentRoot = 0
    let hooksArmed = !armedHooks.isEmpty
    drain { $0.finishFast(root: root, hooksArmed: hooksArmed) }
  }

  /// Does what the machine told a caller outside the lane to do.
  func carryOut(_ action: Machine.SubmitAction) {
    switch action {
    case .none: return
    case .drain: break
    // Drains when the lane was handed to this thread, until its chain is done.
    case .wait(let seq): guard storage.block(seq) == .drain else { return }
    case .scheduleWorker: return startWorker()
    }
    beginDrain()
    drain { $0.next() }
  }

  private func startWorker() {
    // Weak: a queued block must not keep alive a lane nobody holds (its stores are gone).
    workerQueue.async { [weak self] in
      // A caller may have taken the lane over before this block ran.
      guard let self, self.storage.withMachine({ $0.startWorker() }) else { return }
      self.beginDrain()
      self.drain { $0.next() }
    }
  }

  /// What a drainer lets go of after the lock once it stops: retired cores, routes to them.
  typealias Leftovers = (retired: [AnyStoreCore], forgotten: ForgottenRoutes)

  /// The most items a drainer runs per transition: its item and those lent with it.
  static var batchLimit: Int { 64 }

  /// One transition of the drainer, under the lock; given an item, it is lent the items of its
  /// chain queued after it (into `batch`, empty). When it lets go, the thread stops being the
  /// drainer before the lane is free, and retired cores with their cached routes go to
  /// `leftovers`.
  private func transition(
    _ leftovers: inout Leftovers?, _ batch: inout [Item],
    _ body: (inout Machine) -> (Machine.Wake, Machine.Step)
  ) -> (Machine.Wake, Machine.Step) {
    storage.withMachine { machine in
      let (wake, step) = body(&machine)
      if case .run(let item) = step {
        machine.lend(after: item, upTo: Self.batchLimit - 1, into: &batch)
        return (wake, step)
      }
      guard case .stop(_, let retired) = step else { return (wake, step) }
      if !retired.isEmpty { leftovers = (retired, forgetRoutes()) }
      endDrain()
      return (wake, step)
    }
  }

  /// Runs items from the transition `first` on until the machine says stop (the calling thread
  /// is the drainer). After an item it runs its batch while no hook is armed and the machine
  /// does not ask it to stop (one atomic load per item), then hands the batch back; it is
  /// released after the lock. Only what each transition hands back crosses the loop.
  private func drain(_ first: (inout Machine) -> (Machine.Wake, Machine.Step)) {
    var leftovers: Leftovers?
    var batch: [Item] = []
    var ranBatch: [Item] = []
    var (wake, step) = transition(&leftovers, &batch, first)
    while true {
      if !wake.isEmpty { storage.wake(wake) }
      switch consume step {
      case .run(let item):
        run(item)
        var ran = 0
        batch.withUnsafeBufferPointer { lent in
          while ran < lent.count, armedHooks.isEmpty, !storage.batchStopped {
            run(lent[ran])
            ran += 1
          }
        }
        let hooksArmed = !armedHooks.isEmpty
        swap(&batch, &ranBatch)
        (wake, step) = transition(&leftovers, &batch) { machine in
          var wake = machine.finish(item, hooksArmed: hooksArmed)
          if !ranBatch.isEmpty { wake.formUnion(machine.finishLent(ranBatch, ran: ran)) }
          return machine.next(after: wake)
        }
        ranBatch = []
      case .runHooks:
        runArmedHooks()
        (wake, step) = transition(&leftovers, &batch) { $0.next(after: $0.hooksRan()) }
      case .stop(let scheduleWorker, _):
        if scheduleWorker { startWorker() }
        // `leftovers` is released on return, after the lock.
        return
      }
    }
  }

  @inline(__always)
  func beginDrain() {
    drainerID.store(ThreadContext.currentID, ordering: .relaxed)
    ThreadContext.setDrainDepth(ThreadContext.drainDepth + 1)
  }

  @inline(__always)
  func endDrain() {
    drainerID.store(0, ordering: .relaxed)
    ThreadContext.setDrainDepth(ThreadContext.drainDepth - 1)
  }

  private func run(_ item: Item) {
    currentRoot = item.root
    item.payload.run(on: self)
    if let inspector = activeInspector { inspector.itemEnded() }
    currentDepth = 0
    // Only when set: storing `nil` over `nil` still releases the old value.
    if currentChain != nil { currentChain = nil }
    currentActionType = nil
    currentRoot = 0
  }

  /// Runs a boxed item's content (``QueuedLaneWork``): an action with its chain or lock, or lane
  /// work.
  func run(_ work: Work) {
    currentDepth = work.depth
    currentChain = work.chain
    switch work.kind {
    case .action(let action):
      if let origin = work.origin, let inspector = activeInspector {
        inspector.stepStarted(action, origin: origin)
      }
      if let lock = work.lock {
        processExclusive(action, under: lock)
      } else if activeInspector != nil {
        processInspected(boxed: action)
      } else {
        process(boxed: action)
      }
    case .work(let body): body()
    }
  }
}
