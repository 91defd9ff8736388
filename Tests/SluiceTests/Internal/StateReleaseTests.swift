import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// Replaced states are released after the store's lock is let go: a value whose `deinit` reads
/// the store, or dispatches to it, never deadlocks the step that dropped it.
@Suite struct StateReleaseTests {
  /// Calls `onDeinit` when it goes away.
  final class Sentinel: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
  }

  struct Holder: Sendable {
    var sentinel: Sentinel?
    var count = 0
  }

  struct Arm: Action {}
  struct Disarm: Action {}
  struct Count: Action {}

  /// A store whose `Arm` action stores a sentinel that runs `onDeinit(store)` when dropped.
  static func makeStore(
    dispatcher: Dispatcher? = nil,
    onDeinit: @escaping @Sendable (Store<Holder>) -> Void
  ) -> Store<Holder> {
    let itself = RegWeak<Store<Holder>>()
    let store = Store(
      initialState: Holder(), dispatcher: dispatcher,
      reducer: Reducer<Holder>()
        .on(Arm.self) { state, _ in
          state.sentinel = Sentinel {
            if let store = itself.object { onDeinit(store) }
          }
        }
        .on(Disarm.self) { state, _ in state.sentinel = nil }
        .on(Count.self) { state, _ in state.count += 1 })
    itself.object = store
    return store
  }

  /// A sentinel whose deinit reads `store.state` and records what it saw.
  static func readingStore(
    dispatcher: Dispatcher? = nil
  ) -> (Store<Holder>, Recorder<Int>) {
    let seen = Recorder<Int>()
    let store = makeStore(dispatcher: dispatcher) { store in seen.append(store.state.count) }
    return (store, seen)
  }

  @Test func resetReleasesTheOldStateOutsideTheLock() async {
    let (store, seen) = Self.readingStore()
    store.dispatch(Count())
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) { store.reset() }

    #expect(finished, "reset() deadlocked on the deinit of the state it dropped")
    #expect(seen.values == [0], "the deinit read the state after the reset")
  }

  @Test func aCommittedTransactionReleasesTheReplacedStateOutsideTheLock() async {
    let dispatcher = Dispatcher()
    let (store, seen) = Self.readingStore(dispatcher: dispatcher)
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      dispatcher.transaction { tx in
        try tx.update(store) { state in
          state.sentinel = nil
          state.count = 5
        }
      }
    }

    #expect(finished, "the commit deadlocked on the deinit of the state it replaced")
    #expect(seen.values == [5], "the deinit read the committed state")
  }

  @Test func anActionThatDropsTheValueCompletesAndItsDeinitReadsAConsistentState() async {
    let log = IssueReporter.collecting()
    let (store, seen) = Self.readingStore(dispatcher: Dispatcher(reporter: log))
    store.dispatch(Count())
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      store.dispatch(Disarm())
    }

    #expect(finished, "the action deadlocked on the deinit of the value it dropped")
    // The deinit runs inside the reducer that dropped the value: it is a read from inside the
    // store's own reducer, reported, and answered with a consistent state, never a torn one.
    #expect(seen.values.count == 1)
    #expect(seen.values.allSatisfy { $0 == 0 || $0 == 1 })
    #expect(log.issues.map(\.kind) == [.stateReadInsideReducer])
  }

  @Test func aDeinitThatDispatchesAsynchronouslyDuringAResetDoesNotDeadlock() async {
    let store = Self.makeStore { store in store.dispatch(Count(), mode: .async) }
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      store.reset()
      store.dispatch(Disarm())
    }

    #expect(finished, "reset() deadlocked on a deinit that dispatches")
    #expect(store.state.count == 1, "the action the deinit dispatched was reduced")
  }

  // A savepoint written back by a transaction (Flask's `rollbackState`).
  @Test func aDeinitThatDispatchesAsynchronouslyDuringAWriteBackDoesNotDeadlock() async {
    let store = Self.makeStore { store in store.dispatch(Count(), mode: .async) }
    let saved = store.state
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      store.dispatcher.transaction { tx in try tx.update(store) { $0 = saved } }
      store.dispatch(Disarm())
    }

    #expect(finished, "the transaction deadlocked on a deinit that dispatches")
    #expect(store.state.count == 1, "the action the deinit dispatched was reduced")
  }

  @Test func anActionWhoseDroppedValueDispatchesAsynchronouslyCompletes() async {
    let store = Self.makeStore { store in store.dispatch(Count(), mode: .async) }
    store.dispatch(Arm())

    let finished = await obsOnBackgroundThread(timeout: hangGuardSeconds) {
      store.dispatch(Disarm())
    }

    #expect(finished, "the action deadlocked on a deinit that dispatches")
    #expect(store.state.count == 1, "the action the deinit dispatched was reduced")
  }
}
