import Foundation
import Synchronization
import Testing

@testable import Sluice

/// Transactions, locks and plain actions from several threads at once on one lane. The invariant
/// `a.x + b.x == 0` is kept only by transactions that move units between `a` and `b`; it is
/// checked on the lane (inside observers and reactors, where a step is complete), because two
/// separate reads of `a.state` and `b.state` from another thread are not atomic across stores.
/// CI runs this suite again under the thread sanitizer.
@Suite struct TransactionStressTests {
  /// A plain action for the third store, tagged with the thread that sent it.
  struct Tick: Action {
    let thread: Int
    let seq: Int
  }

  /// The third store's state: how many ticks it saw, and whether any thread's ticks came out of
  /// order.
  struct Ticks: Equatable, Sendable {
    var count = 0
    var last: [Int: Int] = [:]
    var outOfOrder = 0
  }

  static let ticksReducer = Reducer<Ticks>().on(Tick.self) { state, tick in
    if let last = state.last[tick.thread], last >= tick.seq { state.outOfOrder += 1 }
    state.last[tick.thread] = tick.seq
    state.count += 1
  }

  @Test func transactionsKeepTheCrossStoreInvariantWhilePlainActionsInterleave() async {
    let iterations = 2_000
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher)
    let b = TxFixtures.account(dispatcher)
    let c = Store(initialState: Ticks(), dispatcher: dispatcher, reducer: Self.ticksReducer)
    let violations = Atomic<Int>(0)
    let aChanges = Atomic<Int>(0)
    let reactions = Atomic<Int>(0)
    let check: @Sendable () -> Void = {
      if a.state.x + b.state.x != 0 { violations.add(1, ordering: .relaxed) }
    }
    let subscriptions = [
      a.observe(from: .nextChange) { _ in
        aChanges.add(1, ordering: .relaxed)
        check()
      },
      b.observe(\.x, from: .nextChange) { _ in check() },
      c.observe(\.count, from: .nextChange) { _ in check() },
      a.react { reaction in
        reaction.on(\.x) { change in
          reactions.add(1, ordering: .relaxed)
          if change.new + b.state.x != 0 { violations.add(1, ordering: .relaxed) }
        }
      },
    ]
    let committed = Atomic<Int>(0)
    let unexpected = Atomic<Int>(0)
    let finished = await runOnThreads(4) { thread in
      for seq in 0..<iterations {
        switch thread {
        case 0, 1:
          // Thread 0 moves 1 from a to b, thread 1 moves 2 from b to a.
          let (from, to, amount) = thread == 0 ? (a, b, 1) : (b, a, 2)
          let outcome = dispatcher.transaction("move") { tx in
            try tx.update(from) {
              $0.x -= amount
              $0.moves += 1
            }
            try tx.update(to) {
              $0.x += amount
              $0.moves += 1
            }
          }
          if case .committed = outcome {
            committed.add(1, ordering: .relaxed)
          } else {
            unexpected.add(1, ordering: .relaxed)
          }
          if seq.isMultiple(of: 10) {
            // Abandoned transactions in between must leave no trace.
            let aborted = dispatcher.transaction("abandoned") { tx in
              try tx.update(from) { $0.x -= 1_000 }
              if seq.isMultiple(of: 20) { try tx.abort() }
              throw TxBoom(code: seq)
            }
            if case .committed = aborted { unexpected.add(1, ordering: .relaxed) }
          }
        default:
          c.dispatch(Tick(thread: thread, seq: seq))
        }
      }
    }
    #expect(finished, "deadlock or starvation")
    #expect(committed.load(ordering: .relaxed) == 2 * iterations)
    #expect(unexpected.load(ordering: .relaxed) == 0)
    #expect(violations.load(ordering: .relaxed) == 0)
    #expect(a.state == TxAccount(x: iterations, moves: 2 * iterations))
    #expect(b.state == TxAccount(x: -iterations, moves: 2 * iterations))
    #expect(c.state.count == 2 * iterations)
    #expect(c.state.outOfOrder == 0)
    // One notification (and one reaction) per committed transaction, none for abandoned ones.
    #expect(aChanges.load(ordering: .relaxed) == 2 * iterations)
    #expect(reactions.load(ordering: .relaxed) == 2 * iterations)
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test func locksAndExclusiveActionsNeverLoseOrReorderQueuedWorkUnderConcurrency() async {
    let iterations = 2_000
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher)
    let b = TxFixtures.account(dispatcher)
    let c = Store(initialState: Ticks(), dispatcher: dispatcher, reducer: Self.ticksReducer)
    let violations = Atomic<Int>(0)
    let check: @Sendable () -> Void = {
      if a.state.x + b.state.x != 0 { violations.add(1, ordering: .relaxed) }
    }
    let subscriptions = [
      a.observe(\.x, from: .nextChange) { _ in check() },
      c.observe(\.count, from: .nextChange) { _ in check() },
    ]
    let transactions = Atomic<Int>(0)
    let pauses = iterations
    let finished = await runOnThreads(4) { thread in
      switch thread {
      case 0:
        // Pauses and exclusive actions. An exclusive action runs ahead of what is queued, by
        // design, so the ticks sent under a pause (100) and the exclusive ones (101) are
        // checked for order separately.
        for seq in 0..<pauses {
          if seq.isMultiple(of: 2) {
            let lock = dispatcher.pause("stress")
            c.dispatch(Tick(thread: 100, seq: seq))
            lock.release()
          } else {
            dispatcher.exclusive(Tick(thread: 101, seq: seq))
          }
        }
      case 1:
        for _ in 0..<iterations {
          let outcome = dispatcher.transaction { tx in
            try tx.update(a) { $0.x += 1 }
            try tx.update(b) { $0.x -= 1 }
          }
          switch outcome {
          case .committed, .queued: transactions.add(1, ordering: .relaxed)
          default: break
          }
        }
      default:
        for seq in 0..<iterations { c.dispatch(Tick(thread: thread, seq: seq)) }
      }
    }
    #expect(finished, "deadlock or starvation")
    // A barrier: everything queued before it has run once it returns.
    await dispatcher.transaction { _ in }
    #expect(!dispatcher.isPaused)
    #expect(dispatcher.queueDepth == 0)
    #expect(transactions.load(ordering: .relaxed) == iterations)
    #expect(a.state.x == iterations)
    #expect(b.state.x == -iterations)
    #expect(c.state.count == 2 * iterations + pauses)
    #expect(c.state.last[2] == iterations - 1)
    #expect(c.state.last[3] == iterations - 1)
    #expect(c.state.outOfOrder == 0)
    #expect(violations.load(ordering: .relaxed) == 0)
    for subscription in subscriptions { subscription.cancel() }
  }
}
