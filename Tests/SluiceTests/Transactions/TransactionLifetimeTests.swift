import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// A transaction is usable only inside its closure, on the lane's thread, and it keeps no
/// value once it ended: the staged states live in the stores' cores while the closure runs, so
/// a misused transaction must change nothing, and a committed or abandoned one must leave
/// nothing staged behind.
@Suite struct TransactionLifetimeTests {
  @Test func aTransactionUsedAfterItsClosureReturnedDoesNothingAndIsReported() throws {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher, x: 1)
    let escaped = TxEscaped()
    dispatcher.transaction { tx in
      escaped.transaction = tx
      try tx.update(store) { $0.x = 2 }
    }
    let tx = try #require(escaped.transaction)

    #expect(throws: TransactionError.aborted) { try tx.update(store) { $0.x = 99 } }
    tx.dispatch(TxDeposit(amount: 5))
    #expect(tx.state(of: store).x == 2)
    #expect(store.state == TxAccount(x: 2, moves: 0))
    #expect(
      issues.kinds == Array(repeating: .transactionUsedOutsideItsClosure, count: 3))

    // The misuse staged nothing the next transaction could pick up.
    let other = TxFixtures.account(dispatcher, x: 7)
    let outcome = dispatcher.transaction { tx in try tx.update(other) { $0.x += 1 } }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(store.state == TxAccount(x: 2, moves: 0))
    #expect(other.state.x == 8)
  }

  /// The compiler keeps a transaction inside its closure: capturing it in a `Task` or a
  /// `@Sendable` closure does not compile (see the tests below for code that opts out).
  @Test func aTransactionIsNotSendable() {
    #expect(!isSendable(Dispatcher.Transaction.self))
  }

  @Test func aTransactionUsedFromAnotherThreadWhileItsClosureRunsDoesNothing() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher, x: 1)
    let thrown = Recorder<Bool>()
    let misused = DispatchSemaphore(value: 0)
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      dispatcher.transaction { tx in
        try tx.update(store) { $0.x = 2 }
        // Another thread, while this closure holds the lane: the compiler rejects capturing the
        // transaction there, so only code that opts out of its checks can do it.
        nonisolated(unsafe) let smuggled = tx
        let other = Thread {
          do {
            try smuggled.update(store) { $0.x = 99 }
            thrown.append(false)
          } catch {
            thrown.append(true)
          }
          misused.signal()
          smuggled.dispatch(TxDeposit(amount: 1000))
        }
        other.start()
        // A hang guard: the other thread never blocks on this one.
        _ = misused.wait(timeout: hangGuardDeadline())
        // The other thread's misuse did not abort this transaction.
        try tx.update(store) { $0.x += 1 }
      }
    }
    #expect(finished)
    #expect(thrown.values == [true])
    #expect(
      await txEventually { issues.kinds.count == 2 })
    #expect(issues.kinds == [.transactionUsedOutsideItsClosure, .transactionUsedOutsideItsClosure])
    #expect(store.state == TxAccount(x: 3, moves: 0))
  }

  @Test func anAbortedTransactionReleasesItsStagedValuesOutsideTheLocks() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.holder(dispatcher)
    let released = Recorder<Int>()
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      let outcome = dispatcher.transaction { tx in
        // The token's deinit reads the store: released under a lock, it would deadlock.
        try tx.update(store) { $0.token = TxToken { released.append(store.state.version) } }
        try tx.update(store) { $0.version = 1 }
        try tx.abort()
      }
      #expect(outcome.isAborted)
    }
    #expect(finished)
    #expect(released.values == [0])
    #expect(store.state.token == nil)
    #expect(store.state.version == 0)
  }

  @Test func aCommittedTransactionKeepsNoStagedCopyOfTheState() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.holder(dispatcher)
    let released = Recorder<Int>()
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      dispatcher.transaction { tx in
        try tx.update(store) { $0.token = TxToken { released.append(store.state.version) } }
      }
      // Replacing the token releases the only reference left: the store's.
      dispatcher.transaction { tx in
        try tx.update(store) { state in
          state.token = nil
          state.version = 2
        }
      }
    }
    #expect(finished)
    #expect(released.values == [2])
  }

  @Test func actionsDispatchedInsideAnUpdateAreReducedAfterItsBodyAndDroppedOnAbort() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.account(dispatcher, x: 0)
    let log = TxFixtures.log(dispatcher)
    let committed = dispatcher.transaction { tx in
      try tx.update(store) { state in
        state.x = 10
        tx.dispatch(TxDeposit(amount: 5))  // After this body: onto x == 10.
        tx.dispatch(TxAdd(id: 1))  // Into the log at once.
        #expect(tx.state(of: log).ids == [1])
      }
      #expect(tx.state(of: store).x == 15)
      #expect(tx.touchedStoreCount == 2)
    }
    #expect(committed.isCommitted)
    #expect(store.state == TxAccount(x: 15, moves: 1))
    #expect(log.state.ids == [1])

    let aborted = dispatcher.transaction { tx in
      try tx.update(store) { state in
        state.x = 0
        tx.dispatch(TxDeposit(amount: 1))
        throw TxBoom(code: 1)
      }
    }
    #expect(aborted.isFailed)
    #expect(store.state == TxAccount(x: 15, moves: 1))
    // Nothing deferred survived the failed transaction.
    dispatcher.transaction { tx in try tx.update(store) { $0.x += 1 } }
    #expect(store.state == TxAccount(x: 16, moves: 1))
  }
}

/// Whether `T` is `Sendable`, decided by the compiler: the constrained overload wins when it
/// applies.
private func isSendable<T: Sendable>(_: T.Type) -> Bool { true }
private func isSendable<T>(_: T.Type) -> Bool { false }

/// Where a test keeps a transaction that escaped its closure: only a box that opts out of the
/// compiler's checks lets it out.
final class TxEscaped: @unchecked Sendable {
  // @unchecked Sendable: written inside the transaction's closure, read after it returned
  // (`dispatcher.transaction` returns after the closure ran: a happens-before edge).
  var transaction: Dispatcher.Transaction?
}

/// A reference whose deinit calls back (into a store, in the tests).
final class TxToken: Sendable {
  let onDeinit: @Sendable () -> Void
  init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

/// A state holding a reference, to see when the store lets it go.
struct TxHolder: Sendable {
  var token: TxToken?
  var version = 0
}

extension TxFixtures {
  static func holder(_ dispatcher: Dispatcher) -> Store<TxHolder> {
    Store(initialState: TxHolder(), dispatcher: dispatcher)
  }
}

extension TransactionOutcome {
  var isCommitted: Bool {
    if case .committed = self { return true }
    return false
  }
  var isAborted: Bool {
    if case .aborted = self { return true }
    return false
  }
  var isFailed: Bool {
    if case .failed = self { return true }
    return false
  }
}
