import Foundation
import Testing

@testable import Sluice

/// Flask's `captureState` / `rollbackState` / `commitState`, written with transactions (S11):
/// a transaction that aborts rolls back; a state kept and written back by a transaction returns
/// to it later.
@Suite struct SavepointTests {
  @Test func anAbortedTransactionRollsBackAndNotifiesNothing() {
    let store = TxFixtures.log()
    store.dispatch(TxAdd(id: 1))
    let heard = Recorder<TxLog>()
    let subscription = store.observe(from: .nextChange) { heard.append($0) }

    let outcome = store.dispatcher.transaction { tx in
      tx.dispatch(TxAdd(id: 2))
      tx.dispatch(TxAdd(id: 3))
      if tx.state(of: store).total > 2 { try tx.abort() }
    }

    #expect(outcome.isAborted)
    #expect(store.state == TxLog(ids: [1], total: 1))
    #expect(heard.values.isEmpty)
    subscription.cancel()
  }

  @Test func writingAKeptStateBackReturnsToItAndIsObservedAsAChange() {
    let store = TxFixtures.log()
    store.dispatch(TxAdd(id: 1))
    let saved = store.state
    store.dispatch(TxAdd(id: 2))
    store.dispatch(TxAdd(id: 3))
    let heard = Recorder<String>()
    let subscriptions = [
      store.observe(\.ids, from: .nextChange) { heard.append("ids \($0.old)->\($0.new)") },
      store.react { reaction in reaction.on(\.total) { heard.append("total \($0.new)") } },
    ]

    store.dispatcher.transaction { tx in try tx.update(store) { $0 = saved } }

    #expect(store.state == TxLog(ids: [1], total: 1))
    #expect(heard.values == ["ids [1, 2, 3]->[1]", "total 1"])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func keepingAndWritingBackQueueBehindALockInOrderWithActions() {
    let store = TxFixtures.log()
    let saved = Recorder<TxLog>()
    let lock = store.dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    store.dispatcher.transaction { tx in saved.append(tx.state(of: store)) }
    store.dispatch(TxAdd(id: 2))
    store.dispatcher.transaction { tx in
      guard let state = saved.values.last else { try tx.abort() }
      try tx.update(store) { $0 = state }
    }
    store.dispatch(TxAdd(id: 3))
    #expect(store.state.ids.isEmpty)
    lock.release()
    #expect(store.state.ids == [1, 3])
  }

  @Test func writingBackOneStoreLeavesTheOthers() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.log(dispatcher)
    let b = TxFixtures.log(dispatcher)
    let saved = a.state
    dispatcher.dispatch(TxAdd(id: 1))
    dispatcher.transaction { tx in try tx.update(a) { $0 = saved } }
    #expect(a.state.ids.isEmpty)
    #expect(b.state.ids == [1])
  }
}
