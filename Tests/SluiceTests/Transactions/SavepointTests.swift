import Foundation
import Testing

@testable import Sluice

/// Flask's `captureState` / `rollbackState` / `commitState`, as `Store` savepoints (S11).
@Suite struct SavepointTests {
  @Test func rollingBackReturnsToTheCapturedStateAndIsObservedAsAChange() {
    let store = TxFixtures.log()
    store.dispatch(TxAdd(id: 1))
    store.captureState()
    #expect(store.hasCapturedState)
    store.dispatch(TxAdd(id: 2))
    store.dispatch(TxAdd(id: 3))
    let heard = Recorder<String>()
    let subscriptions = [
      store.observe(\.ids, from: .nextChange) { heard.append("ids \($0.old)->\($0.new)") },
      store.react { reaction in reaction.on(\.total) { heard.append("total \($0.new)") } },
    ]
    store.rollbackState()
    #expect(store.state == TxLog(ids: [1], total: 1))
    #expect(heard.values == ["ids [1, 2, 3]->[1]", "total 1"])
    #expect(!store.hasCapturedState)
    withExtendedLifetime(subscriptions) {}
  }

  @Test func rollingBackWithoutACaptureReportsNothingCapturedAndChangesNothing() {
    let issues = TxIssues()
    let store = TxFixtures.log(Dispatcher(reporter: issues.reporter))
    store.dispatch(TxAdd(id: 1))
    let heard = Recorder<TxLog>()
    let subscription = store.observe(from: .nextChange) { heard.append($0) }
    store.rollbackState()
    #expect(store.state.ids == [1])
    #expect(heard.values.isEmpty)
    #expect(issues.kinds == [.nothingCaptured])
    subscription.cancel()
  }

  @Test func committingKeepsTheStateAndForgetsTheCapture() {
    let issues = TxIssues()
    let store = TxFixtures.log(Dispatcher(reporter: issues.reporter))
    store.captureState()
    store.dispatch(TxAdd(id: 1))
    store.commitState()
    #expect(!store.hasCapturedState)
    #expect(store.state.ids == [1])
    store.rollbackState()
    #expect(store.state.ids == [1])
    #expect(issues.kinds == [.nothingCaptured])
  }

  @Test func aLaterCaptureReplacesTheEarlierOne() {
    let store = TxFixtures.log()
    store.captureState()
    store.dispatch(TxAdd(id: 1))
    store.captureState()
    store.dispatch(TxAdd(id: 2))
    store.rollbackState()
    #expect(store.state.ids == [1])
  }

  @Test func aRollbackIsOnlyUsedOnce() {
    let issues = TxIssues()
    let store = TxFixtures.log(Dispatcher(reporter: issues.reporter))
    store.captureState()
    store.dispatch(TxAdd(id: 1))
    store.rollbackState()
    store.dispatch(TxAdd(id: 2))
    store.rollbackState()
    #expect(store.state.ids == [2])
    #expect(issues.kinds == [.nothingCaptured])
  }

  @Test func captureAndRollbackQueueBehindALockInOrderWithActions() {
    let store = TxFixtures.log()
    let lock = store.dispatcher.pause()
    store.dispatch(TxAdd(id: 1))
    store.captureState()
    store.dispatch(TxAdd(id: 2))
    store.rollbackState()
    store.dispatch(TxAdd(id: 3))
    #expect(store.state.ids.isEmpty)
    lock.release()
    #expect(store.state.ids == [1, 3])
  }

  @Test func savepointsAreIndependentPerStore() {
    let dispatcher = Dispatcher()
    let a = TxFixtures.log(dispatcher)
    let b = TxFixtures.log(dispatcher)
    a.captureState()
    dispatcher.dispatch(TxAdd(id: 1))
    a.rollbackState()
    #expect(a.state.ids.isEmpty)
    #expect(b.state.ids == [1])
    #expect(!b.hasCapturedState)
  }
}
