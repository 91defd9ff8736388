import Dispatch
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// S6: delivery as an `AsyncSequence` — `store.values` and `store.values(of:)`.
@Suite struct AsyncSequenceTests {
  @Test func valuesYieldsTheCurrentStateThenEveryChangeInOrder() async {
    let store = ObsFixtures.store(ObsState(a: 1))
    let stream = store.values
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsNoChange())
    store.dispatch(ObsSetB(value: 3))
    store.dispatch(ObsSetA(value: 4))

    let states = await obsCollect(stream, count: 4)
    #expect(
      states == [
        ObsState(a: 1), ObsState(a: 2), ObsState(a: 2, b: 3), ObsState(a: 4, b: 3),
      ])
  }

  @Test func valuesOfAPathYieldsOnlyDistinctChanges() async {
    let store = ObsFixtures.store()
    let stream = store.values(of: \.a)
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetB(value: 5))
    store.dispatch(ObsSetA(value: 2))
    store.dispatch(ObsSetA(value: 1))
    store.dispatch(ObsSetA(value: 1))
    // A change of another path after the last expected value: must not appear either.
    store.dispatch(ObsSetB(value: 6))
    store.dispatch(ObsSetA(value: 9))

    let values = await obsCollect(stream, count: 5)
    #expect(values == [0, 1, 2, 1, 9])
  }

  @Test func valuesFollowsDispatchesFromOtherThreadsWhileIterating() async {
    let store = ObsFixtures.store()
    let total = 500
    let started = ObsEvent()
    let consumer = Task {
      var seen: [Int] = []
      for await state in store.values {
        seen.append(state.a)
        started.signal()
        if state.a == total { break }
      }
      return seen
    }
    #expect(await started.wait())
    let workers = ObsThreads(2) { _ in
      for _ in 0..<(total / 2) { store.dispatch(ObsIncrementA()) }
    }
    #expect(await workers.join())
    DispatchQueue.global().asyncAfter(deadline: hangGuardDeadline()) { consumer.cancel() }
    let seen = await consumer.value
    #expect(seen == Array(0...total))
  }

  @Test func cancellingTheConsumingTaskRemovesTheObserver() async {
    let store = ObsFixtures.store()
    let received = ObsRecorder<Int>()
    let consumer = Task {
      for await state in store.values { received.append(state.a) }
    }
    let pathConsumer = Task {
      for await value in store.values(of: \.b) { received.append(value) }
    }
    #expect(await received.waitForCount(2))
    #expect(store.observerCount == 2)

    consumer.cancel()
    pathConsumer.cancel()
    await consumer.value
    await pathConsumer.value
    let removed = await obsEventually(
      poke: { store.dispatch(ObsNoChange()) },
      until: { store.observerCount == 0 })
    #expect(removed)
  }

  @Test func leavingAForAwaitLoopWithBreakRemovesTheObserver() async {
    let store = ObsFixtures.store()
    // The stream is made here (so it holds the current state, 0) and handed to the task, which
    // becomes its only holder.
    let consumer = Self.firstTwo(of: store.values)
    store.dispatch(ObsSetA(value: 1))
    DispatchQueue.global().asyncAfter(deadline: hangGuardDeadline()) { consumer.cancel() }
    let seen = await consumer.value
    #expect(seen == [0, 1])

    // The loop is over and nothing holds the stream any more: its observer must go, instead of
    // buffering every later state forever.
    let removed = await obsEventually(
      poke: { store.dispatch(ObsIncrementA()) },
      until: { store.observerCount == 0 })
    #expect(removed)
  }

  private static func firstTwo(of stream: AsyncStream<ObsState>) -> Task<[Int], Never> {
    Task {
      var seen: [Int] = []
      for await state in stream {
        seen.append(state.a)
        if seen.count == 2 { break }
      }
      return seen
    }
  }

  @Test func aStreamDoesNotKeepItsStoreAlive() async {
    weak var weakStore: Store<ObsState>?
    var stream: AsyncStream<ObsState>?
    do {
      let store = ObsFixtures.store()
      weakStore = store
      stream = store.values
      store.dispatch(ObsSetA(value: 1))
    }
    #expect(weakStore == nil)
    // What was buffered before the store went is still readable.
    if let stream {
      let states = await obsCollect(stream, count: 2)
      #expect(states == [ObsState(), ObsState(a: 1)])
    }
  }
}
