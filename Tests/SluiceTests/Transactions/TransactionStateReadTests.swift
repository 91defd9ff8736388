import Foundation
import Testing

@testable import Sluice

/// `Transaction.state(of:)` never reads unsafely: a store of another dispatcher is read through
/// its thread-safe `state` (and reported), and a store read, updated or dispatched to inside its
/// own `update` body never violates exclusivity.
@Suite struct TransactionStateReadTests {
  @Test func theStateOfAStoreOnAnotherDispatcherIsItsThreadSafeStateAndIsReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let mine = TxFixtures.account(dispatcher)
    let foreign = TxFixtures.account(Dispatcher(), x: 7)
    let read = Recorder<Int>()
    let outcome = dispatcher.transaction { tx in
      read.append(tx.state(of: foreign).x)
      try tx.update(mine) { $0.x = 1 }
    }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(read.values == [7])
    #expect(mine.state.x == 1)
    #expect(issues.kinds == [.foreignStoreInTransaction])
  }

  @Test func theStateOfAStoreOfTheLaneIsItsStagedOrCurrentState() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let a = TxFixtures.account(dispatcher, x: 3)
    let b = TxFixtures.account(dispatcher, x: 4)
    let read = Recorder<Int>()
    dispatcher.transaction { tx in
      read.append(tx.state(of: a).x)
      try tx.update(a) { $0.x = 10 }
      read.append(tx.state(of: a).x)
      read.append(tx.state(of: b).x)
    }
    #expect(read.values == [3, 10, 4])
    #expect(issues.all.isEmpty)
  }

  @Test func readingAStoreInsideItsOwnUpdateGivesItsStateBeforeTheTransactionAndIsReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher, x: 5)
    let read = Recorder<Int>()
    let outcome = dispatcher.transaction { tx in
      try tx.update(store) { $0.x = 6 }
      try tx.update(store) { state in
        state.x += 10
        read.append(tx.state(of: store).x)
      }
      read.append(tx.state(of: store).x)
    }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(read.values == [5, 16])
    #expect(store.state.x == 16)
    #expect(issues.kinds == [.stateReadInsideUpdate])
  }

  @Test func updatingAStoreInsideItsOwnUpdateAbortsTheTransactionAndIsReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher, x: 5)
    let heard = Recorder<Int>()
    let subscription = store.observe(\.x, from: .nextChange) { heard.append($0.new) }
    let outcome = dispatcher.transaction { tx in
      try tx.update(store) { state in
        state.x = 6
        try tx.update(store) { $0.x = 7 }
      }
    }
    guard case .aborted = outcome else {
      Issue.record("expected .aborted, got \(outcome)")
      return
    }
    #expect(store.state.x == 5)
    #expect(heard.values.isEmpty)
    #expect(issues.kinds == [.reentrantUpdate])
    withExtendedLifetime(subscription) {}
  }

  @Test func anActionDispatchedInsideAnUpdateReachesThatStoreAfterTheUpdate() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher, x: 5)
    let other = TxFixtures.account(dispatcher, x: 0)
    let outcome = dispatcher.transaction { tx in
      try tx.update(store) { state in
        tx.dispatch(TxDeposit(amount: 1))
        state.x *= 10
      }
    }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(store.state == TxAccount(x: 51, moves: 1))
    #expect(other.state == TxAccount(x: 1, moves: 1))
    #expect(issues.all.isEmpty)
  }
}
