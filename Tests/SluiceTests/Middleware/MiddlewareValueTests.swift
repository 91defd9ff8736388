import Dispatch
import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// A token whose deinit dispatches into a store, on the lane that releases it.
final class MwDispatchingToken: Sendable {
  let store: Store<MwState>

  init(_ store: Store<MwState>) { self.store = store }

  deinit { store.dispatch(MwFollowUp()) }
}

/// A middleware's `before` hands a value to the `after` of the same action.
@Suite("Middleware values")
struct MiddlewareValueTests {
  /// Middleware whose `before` names the action and the state it saw, and whose `after` logs
  /// whether the value it got names the same ones.
  static func pairing(_ log: MwLog<String>, label: String = "") -> Middleware<MwState> {
    Middleware(
      before: { action, state in "\(label)\(mwName(action)) at \(state.count)" },
      after: { action, old, _, value in
        let expected = "\(label)\(mwName(action)) at \(old.count)"
        log.append(value == expected ? "paired \(value)" : "MIXED \(value) for \(expected)")
      })
  }

  @Test func eachAfterGetsTheValueOfItsOwnBeforeThroughNestedAndReentrantDispatches() {
    let log = MwLog<String>()
    let inner = Store(
      initialState: MwState(), reducer: mwReducer(), middleware: [Self.pairing(log)])
    // Another dispatcher's store reduces now, nested in the outer store's hooks.
    let nesting = Middleware<MwState>.before { action, _ in
      if action is MwIncrement { inner.dispatch(MwAdd(amount: 5)) }
    }
    let outer = Store(
      initialState: MwState(), reducer: mwReducer(), middleware: [Self.pairing(log), nesting])
    // From the outer store's lane: queued, reduced after the current action.
    let reentrant = outer.use(
      .after { [weak outer] action, _, _ in
        if action is MwIncrement { outer?.dispatch(MwFollowUp()) }
      })

    outer.dispatch(MwIncrement())

    #expect(
      log.all == ["paired MwAdd at 0", "paired MwIncrement at 0", "paired MwFollowUp at 1"])
    #expect(outer.state.count == 101)
    reentrant.cancel()
  }

  @Test func aTransactionHandsEachStoreItsOwnValue() {
    let log = MwLog<String>()
    let a = Store(
      initialState: MwState(count: 1), reducer: mwReducer(),
      middleware: [Self.pairing(log, label: "a ")])
    let b = Store(
      initialState: MwState(count: 2), dispatcher: a.dispatcher, reducer: mwReducer(),
      middleware: [Self.pairing(log, label: "b ")])

    a.dispatcher.transaction("both") { tx in
      tx.dispatch(MwIncrement())
    }

    #expect(
      log.all == [
        "paired a TransactionCommitted at 1", "paired b TransactionCommitted at 2",
      ])
    #expect(b.state.count == 3)
  }

  @Test func valuesFromSeveralThreadsAtOnceAreNotMixed() {
    let log = MwLog<String>()
    let shared = Self.pairing(log)
    let stores = (0..<2).map { _ in
      Store(initialState: MwState(), reducer: mwReducer(), middleware: [shared])
    }
    let threads = 4
    let perThread = 200
    let done = DispatchSemaphore(value: 0)
    for index in 0..<threads {
      Thread {
        for _ in 0..<perThread { stores[index % 2].dispatch(MwIncrement()) }
        done.signal()
      }.start()
    }
    for _ in 0..<threads {
      guard done.wait(timeout: hangGuardDeadline()) == .success else {
        Issue.record("the dispatching threads did not finish: a deadlock")
        return
      }
    }
    #expect(log.all.count == threads * perThread)
    #expect(log.all.allSatisfy { $0.hasPrefix("paired ") })
    #expect(stores.map(\.state.count) == [2 * perThread, 2 * perThread])
  }

  @Test func aValueWhoseDeinitDispatchesIsReleasedWhereDispatchingCannotDeadlock() {
    let store = Store(initialState: MwState(), reducer: mwReducer())
    let holding = store.use(
      Middleware(
        before: { [weak store] action, _ -> MwDispatchingToken? in
          guard action is MwIncrement, let store else { return nil }
          return MwDispatchingToken(store)
        },
        after: { _, _, _, _ in }))

    store.dispatch(MwIncrement())

    #expect(store.state.count == 101)
    holding.cancel()
  }
}
