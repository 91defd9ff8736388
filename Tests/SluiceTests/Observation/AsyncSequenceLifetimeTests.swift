import Dispatch
import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// S10 for `store.values`: a stream that ends — left with `break`, dropped, or whose task is
/// cancelled — removes its observer and its end-of-store entry; nothing accumulates.
@Suite struct AsyncSequenceLifetimeTests {
  @Test func abandonedStreamsLeaveNoObserverAndNoEndOfStoreEntryBehind() async {
    let store = ObsFixtures.store()
    let keep = store.observe(\.a) { _ in }
    let baseline = store.observerCount
    let baselineEnds = store.core.endOfStore.withLock { $0.count }

    for _ in 0..<25 {
      for await _ in store.values { break }
      for await _ in store.values(of: \.a) { break }
    }
    for _ in 0..<25 {
      _ = store.values
      _ = store.values(of: \.b)
    }
    for _ in 0..<25 {
      let stream = store.values
      let task = Task {
        for await _ in stream {}
      }
      task.cancel()
      await task.value
    }
    for _ in 0..<25 {
      let task = Task {
        for await _ in store.values(of: \.a) {}
      }
      task.cancel()
      await task.value
    }

    #expect(await obsEventually { store.observerCount == baseline })
    #expect(store.core.endOfStore.withLock { $0.count } == baselineEnds)
    #expect(store.valueStreamCount == 0)
    withExtendedLifetime(keep) {}
  }

  @Test func aLiveStreamStillEndsWhenTheStoreIsDeinitialized() async {
    // The store goes away when this returns; its stream must end after what was buffered.
    func streamOfAStoreThatIsGone() -> AsyncStream<Int> {
      let store = ObsFixtures.store()
      let stream = store.values(of: \.a)
      store.dispatch(ObsSetA(value: 1))
      return stream
    }
    let stream = streamOfAStoreThatIsGone()
    let consumer = Task {
      var seen: [Int] = []
      for await value in stream { seen.append(value) }
      return (seen: seen, endedByTimeout: Task.isCancelled)
    }
    DispatchQueue.global().asyncAfter(deadline: hangGuardDeadline()) { consumer.cancel() }
    let outcome = await consumer.value
    #expect(outcome.seen == [0, 1])
    #expect(!outcome.endedByTimeout)
  }
}
