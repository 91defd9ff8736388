import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/OrderingAndConcurrency.md, compiled and run.

enum OrderingArticle {
  struct Counter: Equatable, Sendable {
    var value = 0
  }

  struct Increment: Action {}

  @Suite("Article: Ordering and Concurrency Guarantees")
  struct Tests {
    @Test func s2ADispatchFromAnObserverRunsBeforeTheOutermostDispatchReturns() {
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

      let store = Store(initialState: Counter(), reducer: reducer)
      let subscription = store.observe(\.value, from: .nextChange) { change in
        if change.new == 1 { store.dispatch(Increment()) }  // queued: runs after this action
      }
      store.dispatch(Increment())
      let value = store.state.value  // 2: both were reduced before dispatch returned
      subscription.cancel()

      #expect(value == 2)
    }

    @Test func s3AsyncDispatchQueuesAndSendResumesOnceProcessed() async {
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

      let dispatcher = Dispatcher(maxQueueDepth: 100)
      let store = Store(initialState: Counter(), dispatcher: dispatcher, reducer: reducer)
      store.dispatch(Increment(), mode: .async)  // queued; returns at once
      await store.send(Increment())  // resumes once this action, and the one before it, ran
      let value = store.state.value  // 2

      #expect(value == 2)
      #expect(dispatcher.maxQueueDepth == 100)
      #expect(dispatcher.queueDepth == 0)
    }

    @Test func s4ARunawayChainIsReportedAndStopped() {
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

      let issues = IssueReporter.collecting()
      let dispatcher = Dispatcher(maxChainDepth: 10, reporter: issues)
      let store = Store(initialState: Counter(), dispatcher: dispatcher, reducer: reducer)
      let subscription = store.observe(\.value, from: .nextChange) { _ in
        store.dispatch(Increment())  // every change asks for another one
      }
      store.dispatch(Increment())
      subscription.cancel()
      // store.state.value == 11: the first action and a chain of 10
      // issues.issues.map(\.kind) == [.runawayActionChain]

      #expect(store.state.value == 11)
      #expect(issues.issues.map(\.kind) == [.runawayActionChain])
      #expect(issues.issues.first?.message.contains("Increment") == true)
      store.dispatch(Increment())
      #expect(store.state.value == 12, "the lane works after a runaway chain")
    }

    @Test func s5DispatchFromManyThreadsLosesNothing() {
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }
      let store = Store(initialState: Counter(), reducer: reducer)

      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        for _ in 0..<1_000 { store.dispatch(Increment()) }
      }
      let value = store.state.value  // 8,000: nothing lost

      #expect(value == 8_000)
    }

    @Test func s13BeforeAndAfterHooksSeeTheOldAndNewState() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

      let steps = Middleware<Counter>(
        before: { action, state in print("before \(action): \(state.value)") },
        after: { action, old, new in print("after \(action): \(old.value) → \(new.value)") })
      let store = Store(initialState: Counter(), reducer: reducer, middleware: [steps])
      store.dispatch(Increment())

      #expect(output.lines == ["before Increment(): 0", "after Increment(): 0 → 1"])
      #expect(store.state.value == 1)
    }

    @Test func s13BeforeHandsAValueToTheAfterOfTheSameAction() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

      let timing = Middleware<Counter>(
        before: { _, _ in ContinuousClock.now },
        after: { action, _, _, start in print("\(action) took \(start.duration(to: .now))") })
      let timed = Store(initialState: Counter(), reducer: reducer, middleware: [timing])
      timed.dispatch(Increment())  // Increment() took 0.0001 seconds

      #expect(output.lines.count == 1)
      #expect(output.lines.first?.hasPrefix("Increment() took ") == true)
      #expect(output.lines.first?.hasSuffix(" seconds") == true)
    }

    @Test func s17AStoreThatWaitsReducesAfterTheOther() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }

      let dispatcher = Dispatcher()
      let summary = Store(
        initialState: Counter(), dispatcher: dispatcher,
        reducer: Reducer<Counter>().on(Increment.self) { state, _ in
          print("summary")
          state.value += 1
        })
      let prices = Store(
        initialState: Counter(), dispatcher: dispatcher,
        reducer: Reducer<Counter>().on(Increment.self) { state, _ in
          print("prices")
          state.value += 1
        })
      summary.waitFor(prices)  // summary was made first, but now reduces after prices
      dispatcher.dispatch(Increment())

      #expect(output.lines == ["prices", "summary"])
      #expect(summary.state.value == 1)
      #expect(prices.state.value == 1)
    }

    @Test func s17WithoutWaitForStoresReduceInCreationOrder() {
      let output = ArticleSupport.Output()
      let dispatcher = Dispatcher()
      let stores = ["summary", "prices"].map { name in
        Store(
          initialState: Counter(), dispatcher: dispatcher,
          reducer: Reducer<Counter>().on(Increment.self) { state, _ in
            output.append(name)
            state.value += 1
          })
      }
      dispatcher.dispatch(Increment())
      #expect(output.lines == ["summary", "prices"])
      #expect(stores.map(\.state.value) == [1, 1])
    }
  }
}
