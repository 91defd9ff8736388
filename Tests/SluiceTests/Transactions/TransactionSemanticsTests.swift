import Foundation
import Testing

@testable import Sluice

/// S11: a transaction mutates one or several stores as one lane step; each store notifies once
/// with `old` = its state before the transaction; `abort()` or an error restores every store and
/// notifies nothing (Flask's ChainReaction `react()` / `abort()`, without its pitfalls).
@Suite struct TransactionSemanticsTests {
  // MARK: - Abort and errors

  @Test func abortingLeavesEveryStoreAsItWasAndNotifiesNobody() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 5)
    let b = TxFixtures.log(dispatcher)
    let heard = Recorder<String>()
    let subscriptions = [
      a.observe(from: .nextChange) { heard.append("a whole \($0.x)") },
      a.observe(\.x, from: .nextChange) { heard.append("a.x \($0.old)->\($0.new)") },
      b.observe(\.ids, from: .nextChange) { heard.append("b.ids \($0.new)") },
      a.react { reaction in reaction.on(\.x) { heard.append("react a.x \($0.new)") } },
      b.react { reaction in reaction.on("total") { heard.append("react b.total \($0.new)") } },
      a.onAction { action, _ in heard.append("tap a \(type(of: action))") },
      a.use(.after { action, _, _ in heard.append("after a \(type(of: action))") }),
    ]
    let outcome = dispatcher.transaction("doomed") { tx in
      try tx.update(a) { $0.x = 100 }
      tx.dispatch(TxAdd(id: 1))
      tx.dispatch(TxDeposit(amount: 3))
      #expect(tx.touchedStoreCount == 2)
      try tx.abort()
    }
    guard case .aborted = outcome else {
      Issue.record("expected .aborted, got \(outcome)")
      return
    }
    #expect(a.state == TxAccount(x: 5))
    #expect(b.state == TxLog())
    #expect(heard.values.isEmpty)
    // The observers' memory of the values was not disturbed: the next real change reports the
    // value from before the aborted transaction as `old`.
    a.dispatch(TxDeposit(amount: 1))
    #expect(heard.values.contains("a.x 5->6"))
    #expect(heard.values.contains("react a.x 6"))
    withExtendedLifetime(subscriptions) {}
  }

  @Test func throwingRestoresEveryTouchedStoreAndReturnsTheError() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 1)
    let b = TxFixtures.account(dispatcher, x: 2)
    let c = TxFixtures.log(dispatcher)
    let heard = Recorder<String>()
    let subscriptions = [a, b].map { store in
      store.observe(from: .nextChange) { heard.append("account \($0.x)") }
    }
    let logSubscription = c.observe(from: .nextChange) { heard.append("log \($0.ids)") }
    let outcome = dispatcher.transaction { tx in
      try tx.update(a) { $0.x -= 10 }
      try tx.update(b) { $0.x += 10 }
      tx.dispatch(TxAdd(id: 7))
      try tx.update(c) { state in
        state.total = 99
        throw TxBoom(code: 42)
      }
    }
    guard case .failed(let error) = outcome else {
      Issue.record("expected .failed, got \(outcome)")
      return
    }
    #expect(error as? TxBoom == TxBoom(code: 42))
    #expect(a.state == TxAccount(x: 1))
    #expect(b.state == TxAccount(x: 2))
    #expect(c.state == TxLog())
    #expect(heard.values.isEmpty)
    withExtendedLifetime((subscriptions, logSubscription)) {}
  }

  @Test func aStoreOfAnotherDispatcherFailsTheTransactionAndIsReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let mine = TxFixtures.account(dispatcher)
    let foreign = TxFixtures.account(Dispatcher())
    let outcome = dispatcher.transaction("mixed") { tx in
      try tx.update(mine) { $0.x = 1 }
      try tx.update(foreign) { $0.x = 1 }
    }
    guard case .failed(let error) = outcome else {
      Issue.record("expected .failed, got \(outcome)")
      return
    }
    #expect(error as? TransactionError == .foreignStore)
    #expect(mine.state.x == 0)
    #expect(foreign.state.x == 0)
    #expect(issues.kinds == [.foreignStoreInTransaction])
  }

  // MARK: - Commit

  @Test func eachStoreNotifiesOncePerTransactionWithThePreTransactionStateAsOld() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 10)
    let b = TxFixtures.log(dispatcher)
    let heard = Recorder<String>()
    let subscriptions = [
      a.observe(from: .nextChange) { heard.append("a \($0.x)/\($0.moves)") },
      a.observe(\.x, from: .nextChange) { heard.append("a.x \($0.old)->\($0.new)") },
      b.observe(\.ids, from: .nextChange) { heard.append("b.ids \($0.old)->\($0.new)") },
      b.react { reaction in
        reaction.on(\.total) { heard.append("react b.total \($0.old)->\($0.new)") }
      },
    ]
    let outcome = dispatcher.transaction { tx in
      try tx.update(a) { $0.x = 11 }
      tx.dispatch(TxDeposit(amount: 5))  // a.x 16, a.moves 1
      try tx.update(a) { $0.x *= 2 }  // a.x 32
      tx.dispatch(TxAdd(id: 1))
      tx.dispatch(TxAdd(id: 2))
      #expect(tx.state(of: a).x == 32)
      #expect(tx.state(of: b).ids == [1, 2])
    }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(
      heard.values == [
        "a 32/1", "a.x 10->32", "b.ids []->[1, 2]", "react b.total 0->2",
      ])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func observersOfOneStoreSeeTheOtherStoresAlreadyCommitted() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 100)
    let b = TxFixtures.account(dispatcher)
    let sums = Recorder<Int>()
    let subscriptions = [a, b].map { store in
      store.observe(from: .nextChange) { _ in sums.append(a.state.x + b.state.x) }
    }
    dispatcher.transaction { tx in
      try tx.update(a) { $0.x -= 30 }
      try tx.update(b) { $0.x += 30 }
    }
    #expect(sums.values == [100, 100])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test func otherReadersSeeThePreTransactionStateUntilTheCommit() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 1)
    let seenInside = Recorder<String>()
    dispatcher.transaction { tx in
      try tx.update(a) { $0.x = 2 }
      seenInside.append("store \(a.state.x), staged \(tx.state(of: a).x)")
    }
    #expect(seenInside.values == ["store 1, staged 2"])
    #expect(a.state.x == 2)
  }

  @Test func anEmptyTransactionCommitsAndNotifiesNothing() {
    let store = TxFixtures.account()
    let heard = Recorder<Int>()
    let subscription = store.observe(from: .nextChange) { heard.append($0.x) }
    let outcome = store.dispatcher.transaction { _ in }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(heard.values.isEmpty)
    subscription.cancel()
  }

  @Test func middlewareAndTapsSeeOneTransactionCommittedWithItsLabelAndStoreCount() {
    let dispatcher = Dispatcher()
    let seen = Recorder<String>()
    let describe = Self.describe
    let logging = Middleware<TxAccount>(
      before: { action, old in seen.append("before \(describe(action)) x=\(old.x)") },
      after: { action, old, new in
        seen.append("after \(describe(action)) \(old.x)->\(new.x)")
      })
    let a = Store(
      initialState: TxAccount(), dispatcher: dispatcher, reducer: TxFixtures.accountReducer,
      middleware: [logging])
    let b = TxFixtures.log(dispatcher)
    let untouched = Store(
      initialState: TxAccount(), dispatcher: dispatcher, reducer: Reducer(),
      middleware: [.before { action, _ in seen.append("untouched \(describe(action))") }])
    let taps = [
      a.onAction { action, before in seen.append("tap a \(describe(action)) x=\(before.x)") },
      b.onAction { action, before in seen.append("tap b \(describe(action)) \(before.ids)") },
    ]
    dispatcher.transaction("checkout") { tx in
      tx.dispatch(TxDeposit(amount: 4))
      tx.dispatch(TxAdd(id: 9))
    }
    #expect(
      seen.values == [
        "tap a committed checkout 2 x=0",
        "before committed checkout 2 x=0",
        "tap b committed checkout 2 []",
        "after committed checkout 2 0->4",
      ])
    withExtendedLifetime((taps, untouched)) {}
  }

  @Sendable static func describe(_ action: any Action) -> String {
    if let committed = action as? TransactionCommitted {
      return "committed \(committed.label) \(committed.storeCount)"
    }
    return "\(type(of: action))"
  }

  // MARK: - Queueing

  @Test func aTransactionFromInsideAnObserverIsQueuedAndRunsAfterTheCurrentStep() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher)
    let b = TxFixtures.log(dispatcher)
    let order = Recorder<String>()
    let outcomes = Recorder<String>()
    let first = a.observe(\.x, from: .nextChange) { change in
      order.append("first observer sees a.x=\(change.new)")
      let outcome = dispatcher.transaction("from observer") { tx in
        order.append("transaction runs")
        try tx.update(b) { $0.ids.append(change.new) }
      }
      outcomes.append("\(outcome)")
    }
    let second = a.observe(\.x, from: .nextChange) { change in
      order.append("second observer sees a.x=\(change.new)")
    }
    let onB = b.observe(\.ids, from: .nextChange) { change in
      order.append("b.ids=\(change.new)")
    }
    a.dispatch(TxDeposit(amount: 3))
    // The transaction ran before the outermost dispatch returned.
    #expect(b.state.ids == [3])
    #expect(outcomes.values == ["queued"])
    #expect(
      order.values == [
        "first observer sees a.x=3", "second observer sees a.x=3", "transaction runs",
        "b.ids=[3]",
      ])
    withExtendedLifetime((first, second, onB)) {}
  }

  @Test func transactionsQueuedWhilePausedReplayInOrderWithActions() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    let outcome = dispatcher.transaction { tx in
      try tx.update(store) { $0.ids.append(2) }
      tx.dispatch(TxAdd(id: 3))
    }
    store.dispatch(TxAdd(id: 4))
    dispatcher.transaction { tx in try tx.update(store) { $0.ids.append(5) } }
    #expect("\(outcome)" == "queued")
    #expect(store.state.ids.isEmpty)
    #expect(dispatcher.queueDepth == 4)
    lock.release()
    #expect(store.state.ids == [1, 2, 3, 4, 5])
    #expect(dispatcher.queueDepth == 0)
  }

  @Test func anAbortedQueuedTransactionStillLetsTheActionsAfterItRun() {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    dispatcher.transaction { tx in
      tx.dispatch(TxAdd(id: 99))
      try tx.abort()
    }
    store.dispatch(TxAdd(id: 2))
    lock.release()
    #expect(store.state.ids == [1, 2])
  }

  // MARK: - Async form

  @Test func theAsyncFormCommitsWithoutBlockingAThread() async {
    let dispatcher = Dispatcher()
    let a = TxFixtures.account(dispatcher, x: 3)
    let b = TxFixtures.account(dispatcher)
    let outcome = await dispatcher.transaction("async") { tx in
      try tx.update(a) { $0.x -= 3 }
      try tx.update(b) { $0.x += 3 }
    }
    guard case .committed = outcome else {
      Issue.record("expected .committed, got \(outcome)")
      return
    }
    #expect(a.state.x == 0)
    #expect(b.state.x == 3)
    let aborted = await dispatcher.transaction { tx in
      try tx.update(a) { $0.x = 50 }
      try tx.abort()
    }
    #expect("\(aborted)" == "aborted")
    #expect(a.state.x == 0)
  }

  @Test func theAsyncFormWaitsForAPausedLaneAndCommitsAfterTheRelease() async {
    let dispatcher = Dispatcher()
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    let task = Task {
      await dispatcher.transaction { tx in try tx.update(store) { $0.ids.append(2) } }
    }
    #expect(await txEventually { dispatcher.queueDepth == 2 })
    #expect(store.state.ids.isEmpty)
    lock.release()
    let outcome = await task.value
    #expect("\(outcome)" == "committed")
    #expect(store.state.ids == [1, 2])
  }

  @Test func aTransactionThatDispatchesAnActionNoStoreHandlesChangesNothing() {
    let store = TxFixtures.log()
    let heard = Recorder<[Int]>()
    let subscription = store.observe(\.ids, from: .nextChange) { heard.append($0.new) }
    let outcome = store.dispatcher.transaction { tx in tx.dispatch(TxUnhandled()) }
    #expect("\(outcome)" == "committed")
    #expect(store.state == TxLog())
    #expect(heard.values.isEmpty)
    subscription.cancel()
  }
}
