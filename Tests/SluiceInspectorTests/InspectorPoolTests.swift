import Foundation
import Sluice
import SluiceInspector
import SluiceTestSupport
import Testing

/// `Inspector.start` and `stop()` wait for the lane by suspending: while other threads hold the
/// lanes, two of them in flight leave the cooperative pool's threads free for other tasks.
@Suite struct InspectorPoolTests {
  struct Count: Equatable, Sendable {
    var value = 0
  }

  struct Bump: Action {}

  /// A thread of its own holds `store`'s lane (longer than the hang guard) until `release`.
  struct Hold {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
  }

  /// Holds each store's lane from a thread of its own; returns once all are held.
  func hold(_ stores: [Store<Count>]) async -> (holds: [Hold], subscriptions: [Subscription]) {
    var holds: [Hold] = []
    var subscriptions: [Subscription] = []
    for store in stores {
      let hold = Hold()
      let target = store.state.value + 1
      subscriptions.append(
        store.observe(\.value, from: .nextChange) { change in
          guard change.new == target else { return }
          hold.entered.signal()
          _ = hold.release.wait(timeout: .now() + 2 * hangGuardSeconds)
        })
      Thread { store.dispatch(Bump()) }.start()
      #expect(await offPool { hold.entered.wait(timeout: hangGuardDeadline()) == .success })
      holds.append(hold)
    }
    return (holds, subscriptions)
  }

  /// Whether a new task runs (within ``hangGuard``) while `holds` hold their lanes;
  /// lets go of them either way.
  func anUnrelatedTaskRuns(releasing holds: [Hold]) async -> Bool {
    let ran = DispatchSemaphore(value: 0)
    Task { ran.signal() }
    return await offPool {
      let result = ran.wait(timeout: hangGuardDeadline()) == .success
      for hold in holds { hold.release.signal() }
      return result
    }
  }

  /// Runs blocking `work` on a thread outside the cooperative pool and returns its result.
  func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: work()) }.start()
    }
  }

  @Test func startAndStopSuspendWhileOtherThreadsHoldTheLanes() async throws {
    let reducer = Reducer<Count>().on(Bump.self) { state, _ in state.value += 1 }
    let stores = (0..<2).map { _ in Store(initialState: Count(), reducer: reducer) }

    var held = await hold(stores)
    let starts = stores.map { store in
      Task { try await Inspector.start(store.dispatcher) }
    }
    #expect(await anUnrelatedTaskRuns(releasing: held.holds))
    var inspectors: [Inspector] = []
    for start in starts { inspectors.append(try await start.value) }
    for subscription in held.subscriptions { subscription.cancel() }

    held = await hold(stores)
    let stops = inspectors.map { inspector in Task { await inspector.stop() } }
    #expect(await anUnrelatedTaskRuns(releasing: held.holds))
    for stop in stops { await stop.value }
    for subscription in held.subscriptions { subscription.cancel() }
    // Detached: the lanes dispatch as before.
    for store in stores { store.dispatch(Bump()) }
    #expect(stores.map(\.state.value) == [3, 3])
  }
}
