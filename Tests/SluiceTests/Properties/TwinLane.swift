import Foundation
import Sluice

/// Two stores on one dispatcher, with the observers ``ReferenceLane`` describes, recording what
/// they see; runs ``LaneCommand``s for real.
///
/// Each store has, in registration order, a whole-state observer, a `\.level` observer and a
/// second whole-state observer, all synchronous, then a whole-state and a `\.level` observer
/// delivered on a concurrent queue. Store B then has the lock observer, which releases the
/// lock of the exclusive action being processed when its level becomes
/// ``releasingLevel``; store A has the marker observer, which dispatches a follow-up from
/// inside the lane the first time it sees a marker.
///
/// Used by one task at a time: not `Sendable`. What runs on the lane (observers, transaction
/// closures, `send` tasks) records into thread-safe ``Recorder``s.
final class TwinLane {
  let dispatcher: Dispatcher
  /// Stores A and B.
  let stores: [Store<TwinState>]
  private let events = TwinSide.allCases.map { _ in Recorder<LaneSnapshot.Event>() }
  private let queuedStates = TwinSide.allCases.map { _ in Recorder<TwinState>() }
  private let queuedLevels = TwinSide.allCases.map { _ in Recorder<LaneSnapshot.Event>() }
  /// Concurrent: the mailbox of each observer, not the queue, keeps its deliveries in order.
  private let deliveryQueue = DispatchQueue(
    label: "sluice.self-properties.delivery", attributes: .concurrent)
  private let issues = Recorder<String>()
  private let reads = Recorder<LaneSnapshot.Read>()
  private let outcomes = Recorder<(id: Int, outcome: LaneSnapshot.Outcome)>()
  private let resumedSends = Recorder<Int>()
  /// The state kept of store A and of store B (Flask's `captureState()`, written with a
  /// transaction), the latest last; `nil` once written back or forgotten.
  private let kept = TwinSide.allCases.map { _ in Recorder<TwinState?>() }
  /// The `send` and asynchronous transaction tasks started while the lane was paused.
  private var tasks: [Task<Void, Never>] = []
  /// How many such tasks were started, and finished, since the lane was made.
  private var startedTasks = 0
  private let finishedTasks = Recorder<Void>()
  /// Every lock taken, released or not, kept so that none is released by its deinit; `nil`
  /// once a `forget` command dropped it.
  private var locks: [Lock?] = []
  private var subscriptions: [Subscription] = []

  /// The level of store B whose setting releases the lock an exclusive action handed to the
  /// observers (`dispatcher.currentLock`), as a reaction that finished its work would.
  static let releasingLevel = 2

  init() {
    let issues = self.issues
    let dispatcher = Dispatcher(
      label: "sluice.self-properties", reporter: IssueReporter { issues.append($0.kind.name) })
    self.dispatcher = dispatcher
    stores = TwinSide.allCases.map { side in
      Store(
        initialState: TwinState(), dispatcher: dispatcher, reducer: TwinFixtures.reducer(for: side))
    }
    for (store, log) in zip(stores, events) {
      subscriptions += [
        store.observe { log.append(.whole(observer: 0, $0)) },
        store.observe(\.level) { log.append(.level(old: $0.old, new: $0.new)) },
        store.observe { log.append(.whole(observer: 1, $0)) },
      ]
    }
    for (index, store) in stores.enumerated() {
      let (states, levels) = (queuedStates[index], queuedLevels[index])
      subscriptions += [
        store.observe(on: .queue(deliveryQueue)) { states.append($0) },
        store.observe(\.level, on: .queue(deliveryQueue)) {
          levels.append(.level(old: $0.old, new: $0.new))
        },
      ]
    }
    subscriptions.append(
      stores[TwinSide.b.rawValue].observe(\.level) { change in
        guard change.new == TwinLane.releasingLevel, change.old != change.new else { return }
        dispatcher.currentLock?.release()
      })
    let claims = TwinClaims()
    subscriptions.append(
      stores[TwinSide.a.rawValue].observe { state in
        guard let marker = state.marker, claims.claim(marker) else { return }
        dispatcher.dispatch(TwinAction.followUp(toMarker: marker).action)
      })
  }

  /// Runs `command`, then, unless the lane is paused, waits until it is idle.
  func run(_ command: LaneCommand) async {
    switch command {
    case .dispatch(let action, let route):
      switch route {
      case .dispatcher: dispatcher.dispatch(action.action)
      case .storeA: stores[TwinSide.a.rawValue].dispatch(action.action)
      case .storeB: stores[TwinSide.b.rawValue].dispatch(action.action)
      }
    case .dispatchAsync(let action):
      dispatcher.dispatch(action.action, mode: .async)
    case .send(let action, let ticket):
      let (dispatcher, resumed) = (self.dispatcher, resumedSends)
      await runOrQueue {
        await dispatcher.send(action.action)
        resumed.append(ticket)
      }
    case .transaction(let plan):
      let (label, body) = ("transaction \(plan.id)", transactionBody(plan))
      switch plan.form {
      case .sync:
        record(plan.id, transactNow(label, body))
      case .async:
        let (dispatcher, outcomes) = (self.dispatcher, self.outcomes)
        await runOrQueue {
          let outcome = await dispatcher.transaction(label, body)
          outcomes.append((plan.id, TwinLane.outcome(outcome)))
        }
      }
    case .pause:
      locks.append(dispatcher.pause())
    case .release(let index):
      if !locks.isEmpty { locks[index % locks.count]?.release() }
    case .forget(let index):
      if !locks.isEmpty { locks[index % locks.count] = nil }
    case .removeAllLocks:
      dispatcher.removeAllLocks()
    case .exclusive(let action):
      locks.append(dispatcher.exclusive(action.action))
    case .reset(let side): stores[side.rawValue].reset()
    case .capture(let side):
      let (store, kept) = (stores[side.rawValue], kept[side.rawValue])
      transactNow("keep") { tx in kept.append(tx.state(of: store)) }
    case .rollback(let side):
      let (store, kept) = (stores[side.rawValue], kept[side.rawValue])
      transactNow("write back") { tx in
        guard let state = kept.values.last ?? nil else { try tx.abort() }
        kept.append(nil)
        try tx.update(store) { $0 = state }
      }
    case .commitCapture(let side):
      let kept = kept[side.rawValue]
      transactNow("forget") { _ in kept.append(nil) }
    }
    guard !dispatcher.isPaused else { return }
    await dispatcher.settle()
    await finishTasks()
  }

  /// What the lane shows now, once the queued deliveries posted so far were made.
  func snapshot() async -> LaneSnapshot {
    // A barrier: every delivery block posted before it has run.
    await withCheckedContinuation { continuation in
      deliveryQueue.async(flags: .barrier) { continuation.resume() }
    }
    var snapshot = LaneSnapshot()
    snapshot.queuedStates = queuedStates.map(\.values)
    snapshot.queuedLevels = queuedLevels.map(\.values)
    snapshot.states = stores.map(\.state)
    snapshot.events = events.map(\.values)
    snapshot.issues = issues.values
    snapshot.lockCount = dispatcher.lockCount
    snapshot.queueDepth = dispatcher.queueDepth
    snapshot.captured = kept.map { ($0.values.last ?? nil) != nil }
    snapshot.reads = reads.values
    // An outcome recorded twice (a transaction that ran twice) shows as unexpected.
    snapshot.outcomes = Dictionary(
      outcomes.values.map { ($0.id, $0.outcome) },
      uniquingKeysWith: { _, _ in .unexpected("recorded twice") })
    snapshot.resumedSends = Set(resumedSends.values)
    return snapshot
  }

  /// Releases every lock and lets the queued work and the tasks finish, so that nothing
  /// outlives the script.
  func close() async {
    dispatcher.removeAllLocks()
    await dispatcher.settle()
    await finishTasks()
    for subscription in subscriptions { subscription.cancel() }
  }

  /// Runs `work` now when the lane is free; while it is paused, `work` would wait for the
  /// release, so it runs in a task, and this returns once the task's item is queued (so that
  /// the order of arrival is the script's).
  private func runOrQueue(_ work: @escaping @Sendable () async -> Void) async {
    guard dispatcher.isPaused else { return await work() }
    let (dispatcher, finished) = (self.dispatcher, finishedTasks)
    let depth = dispatcher.queueDepth
    startedTasks += 1
    tasks.append(
      Task {
        await work()
        finished.append(())
      })
    // Bounded: were the item never queued, the snapshot's queue depth shows it.
    _ = await txEventually { dispatcher.queueDepth > depth }
  }

  /// Waits for the tasks of the last pause, which resume once their items ran. Bounded: a task
  /// that never resumes shows in the snapshot (its send or outcome is missing), not as a hang.
  private func finishTasks() async {
    let (started, finished) = (startedTasks, finishedTasks)
    guard await txEventually({ finished.count == started }) else { return }
    for task in tasks { await task.value }
    tasks.removeAll()
  }

  /// The synchronous `transaction` overload (the asynchronous one is preferred in `async` code).
  @discardableResult
  private func transactNow(
    _ label: String, _ body: @escaping @Sendable (Dispatcher.Transaction) throws -> Void
  ) -> TransactionOutcome {
    dispatcher.transaction(label, body)
  }

  private func record(_ id: Int, _ outcome: TransactionOutcome) {
    outcomes.append((id, TwinLane.outcome(outcome)))
  }

  /// The closure of `plan`'s transaction: its edits, then what it reads, then its ending.
  private func transactionBody(
    _ plan: LaneCommand.Plan
  ) -> @Sendable (Dispatcher.Transaction) throws -> Void {
    let (stores, reads) = (self.stores, self.reads)
    return { tx in
      for edit in plan.edits {
        switch edit {
        case .update(let side, let level): try tx.update(stores[side.rawValue]) { $0.level = level }
        case .dispatch(let action): tx.dispatch(action.action)
        case .updateDispatching(let side, let level, let action):
          try tx.update(stores[side.rawValue]) { state in
            tx.dispatch(action.action)
            state.level = level
          }
        }
      }
      reads.append(LaneSnapshot.Read(transaction: plan.id, states: stores.map { tx.state(of: $0) }))
      switch plan.ending {
      case .commit: return
      case .abort: try tx.abort()
      case .throwing: throw TwinBoom(id: plan.id)
      }
    }
  }

  private static func outcome(_ outcome: TransactionOutcome) -> LaneSnapshot.Outcome {
    switch outcome {
    case .committed: .committed
    case .aborted: .aborted
    case .queued: .queued
    case .failed(let error as TwinBoom): .failed(error.id)
    case .failed(let error): .unexpected("\(error)")
    }
  }
}
