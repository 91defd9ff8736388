import Dispatch
import Foundation
import Testing

@testable import Sluice

/// S6: delivery on a chosen `DispatchQueue`. (`.mainActor` delivery is tested from main-actor
/// tests, in `MainActorObservationTests` and `StoreModelTests`.)
@Suite struct DeliveryTests {
  @Test func queueDeliveryRunsOnTheChosenSerialQueueInLaneOrder() async {
    let queue = DispatchQueue(label: "obs.delivery.serial.end-to-end")
    let key = DispatchSpecificKey<String>()
    queue.setSpecific(key: key, value: "obs.serial")
    let store = ObsFixtures.store()
    let states = ObsRecorder<Int>()
    let onQueue = ObsRecorder<Bool>()

    queue.suspend()
    let subscription = store.observe(on: .queue(queue)) { state in
      onQueue.append(DispatchQueue.getSpecific(key: key) == "obs.serial")
      states.append(state.a)
    }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsSetA(value: 3))
    // The queue is suspended: nothing ran on the dispatching thread.
    #expect(states.values.isEmpty)

    queue.resume()
    #expect(await states.waitForCount(4))
    #expect(states.values == [0, 1, 2, 3])

    store.dispatch(ObsNoChange())
    store.dispatch(ObsSetA(value: 4))
    #expect(await states.waitForCount(5))
    #expect(await obsDrain(queue))
    #expect(states.values == [0, 1, 2, 3, 4])
    #expect(onQueue.values == Array(repeating: true, count: 5))
    withExtendedLifetime(subscription) {}
  }

  @Test func keyPathQueueDeliveryRunsOnTheQueueWithOnlyRealChanges() async {
    let queue = DispatchQueue(label: "obs.delivery.serial.path")
    let key = DispatchSpecificKey<String>()
    queue.setSpecific(key: key, value: "obs.path")
    let store = ObsFixtures.store()
    let changes = ObsRecorder<Change<Int>>()
    let onQueue = ObsRecorder<Bool>()

    queue.suspend()
    let subscription = store.observe(\.a, on: .queue(queue)) { change in
      onQueue.append(DispatchQueue.getSpecific(key: key) == "obs.path")
      changes.append(change)
    }
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetB(value: 9))
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 2))
    #expect(changes.values.isEmpty)
    queue.resume()

    #expect(await changes.waitForCount(3))
    #expect(await obsDrain(queue))
    #expect(
      changes.values == [
        Change(old: 0, new: 0), Change(old: 0, new: 1), Change(old: 1, new: 2),
      ])
    #expect(onQueue.values == [true, true, true])
    withExtendedLifetime(subscription) {}
  }

  @Test func queueDeliveryToAConcurrentQueueNeverOverlapsAndKeepsLaneOrder() async {
    let queue = DispatchQueue(label: "obs.delivery.concurrent.order", attributes: .concurrent)
    let store = ObsFixtures.store()
    let wholeProbe = ObsOverlapProbe()
    let pathProbe = ObsOverlapProbe()
    let states = ObsRecorder<Int>()
    let changes = ObsRecorder<Change<Int>>()
    let wholeSubscription = store.observe(on: .queue(queue)) { state in
      wholeProbe.call { states.append(state.a) }
    }
    let pathSubscription = store.observe(\.a, on: .queue(queue), from: .nextChange) { change in
      pathProbe.call { changes.append(change) }
    }

    let threads = 4
    let perThread = 500
    let workers = ObsThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(ObsIncrementA()) }
    }
    #expect(await workers.join())

    let total = threads * perThread
    #expect(await states.waitForCount(total + 1))
    #expect(await changes.waitForCount(total))
    #expect(await obsDrain(queue))
    #expect(states.values == Array(0...total))
    #expect(changes.values == (0..<total).map { Change(old: $0, new: $0 + 1) })
    #expect(wholeProbe.overlapCount == 0)
    #expect(pathProbe.overlapCount == 0)
    withExtendedLifetime((wholeSubscription, pathSubscription)) {}
  }

  @Test func severalObserversOnOneConcurrentQueueEachSeeEveryStateInOrder() async {
    let queue = DispatchQueue(label: "obs.delivery.concurrent.many", attributes: .concurrent)
    let store = ObsFixtures.store()
    let observers = 3
    let recorders = (0..<observers).map { _ in ObsRecorder<Int>() }
    let probes = (0..<observers).map { _ in ObsOverlapProbe() }
    let subscriptions = (0..<observers).map { index in
      store.observe(on: .queue(queue)) { state in
        probes[index].call { recorders[index].append(state.a) }
      }
    }

    let threads = 3
    let perThread = 300
    let workers = ObsThreads(threads) { _ in
      for _ in 0..<perThread { store.dispatch(ObsIncrementA(), mode: .async) }
    }
    #expect(await workers.join())

    let total = threads * perThread
    for index in 0..<observers {
      #expect(await recorders[index].waitForCount(total + 1))
      #expect(recorders[index].values == Array(0...total))
      #expect(probes[index].overlapCount == 0)
    }
    withExtendedLifetime(subscriptions) {}
  }

  @Test func queueDeliveryOfANonEquatableStateDeliversEveryHandledAction() async {
    let queue = DispatchQueue(label: "obs.delivery.plain")
    let store = ObsFixtures.plainStore()
    let states = ObsRecorder<Int>()
    let subscription = store.observe(on: .queue(queue), from: .nextChange) { state in
      states.append(state.a)
    }
    store.dispatch(ObsNoChange())
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsNoChange())
    store.dispatch(ObsUnhandled())

    #expect(await states.waitForCount(3))
    #expect(await obsDrain(queue))
    #expect(states.values == [0, 1, 1])
    withExtendedLifetime(subscription) {}
  }
}
