import Dispatch
import Foundation
import Testing

@testable import Sluice

/// S7 for observers added by code running on the lane — a reducer, a middleware, a tap: the
/// registration takes effect right after the current step, so the observer starts from the state
/// after that step and then receives every later change; its body never runs under the store's
/// lock.
@Suite struct ObserverAddedOnTheLaneTests {
  /// A store whose reducer of `ObsSetA(1)` runs `register` (once) before it changes the state.
  private static func storeRegisteringInItsReducer(
    reporter: IssueReporter,
    _ register: @escaping @Sendable (Store<ObsState>) -> [Subscription]
  ) -> (store: Store<ObsState>, subscriptions: ObsBox<[Subscription]>) {
    let storeBox = RegWeak<Store<ObsState>>()
    let subscriptions = ObsBox<[Subscription]>([])
    let reducer = Reducer<ObsState>()
      .on(ObsSetA.self) { state, action in
        if action.value == 1, subscriptions.value.isEmpty, let store = storeBox.object {
          subscriptions.value = register(store)
        }
        state.a = action.value
      }
    let store = Store(
      initialState: ObsState(), dispatcher: Dispatcher(reporter: reporter), reducer: reducer)
    storeBox.object = store
    return (store, subscriptions)
  }

  @Test func aKeyPathObserverAddedInAReducerStartsFromTheStateAfterThatStep() {
    let issues = TxIssues()
    let changes = ObsRecorder<Change<Int>>()
    let (store, subscriptions) = Self.storeRegisteringInItsReducer(reporter: issues.reporter) {
      store in [store.observe(\.a) { changes.append($0) }]
    }

    store.dispatch(ObsSetA(value: 1))
    #expect(changes.values == [Change(old: 1, new: 1)])
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values == [Change(old: 1, new: 1), Change(old: 1, new: 2)])
    #expect(issues.all.isEmpty)
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aWholeStateObserverAddedInAReducerReadsTheStoreOutsideItsLock() {
    let issues = TxIssues()
    let states = ObsRecorder<Int>()
    let read = ObsRecorder<Int>()
    let (store, subscriptions) = Self.storeRegisteringInItsReducer(reporter: issues.reporter) {
      store in
      [
        store.observe { [weak store] state in
          states.append(state.a)
          // Under the store's lock this read would be reported and answer the initial state.
          if let store { read.append(store.state.a) }
        }
      ]
    }

    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    #expect(states.values == [1, 2])
    #expect(read.values == [1, 2])
    #expect(issues.all.isEmpty)
    withExtendedLifetime(subscriptions) {}
  }

  @Test func anObserverAddedInAMiddlewareStartsFromTheStateAfterThatStep() {
    let changes = ObsRecorder<Change<Int>>()
    let storeBox = RegWeak<Store<ObsState>>()
    let subscriptions = ObsBox<[Subscription]>([])
    let registering = Middleware<ObsState>.before { action, _ in
      guard (action as? ObsSetA)?.value == 1, subscriptions.value.isEmpty,
        let store = storeBox.object
      else { return }
      subscriptions.value = [store.observe(\.a) { changes.append($0) }]
    }
    let store = Store(
      initialState: ObsState(), reducer: ObsFixtures.reducer, middleware: [registering])
    storeBox.object = store

    store.dispatch(ObsSetA(value: 1))
    #expect(changes.values == [Change(old: 1, new: 1)])
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values == [Change(old: 1, new: 1), Change(old: 1, new: 2)])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aReactorAddedInAReducerHearsTheNextChange() {
    let issues = TxIssues()
    let changes = ObsRecorder<Change<Int>>()
    let (store, subscriptions) = Self.storeRegisteringInItsReducer(reporter: issues.reporter) {
      store in
      [store.react { reaction in reaction.on(\.a) { changes.append($0) } }]
    }

    store.dispatch(ObsSetA(value: 1))
    #expect(changes.values.isEmpty)
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values == [Change(old: 1, new: 2)])
    #expect(issues.all.isEmpty)
    withExtendedLifetime(subscriptions) {}
  }
}
