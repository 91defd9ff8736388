import Foundation
import Sluice
import Testing

@Suite struct ReentrancyTests {
  struct Ping: Action { let n: Int }
  struct Pong: Action { let n: Int }

  @Test func rejectPolicyReportsAndDropsReentrantDispatch() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reentrancy: .reject, reporter: log)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    let subscription = store.observe(\.total, from: .nextChange) { change in
      if change.new == 1 { store.dispatch(LaneAdd(id: 2)) }
    }
    store.dispatch(LaneAdd(id: 1))
    #expect(store.state.ids == [1])
    #expect(log.issues.map(\.kind) == [.reentrantDispatchRejected])
    #expect(log.issues.first?.fileID.hasSuffix("ReentrancyTests.swift") == true)
    subscription.cancel()
  }

  @Test func aRunawayChainIsReportedWithItsActionTypesAndStopped() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(maxChainDepth: 20, reporter: log)
    let store = Store(
      initialState: -1, dispatcher: dispatcher,
      reducer: Reducer<Int>()
        .on(Ping.self) { state, action in state = action.n }
        .on(Pong.self) { state, action in state = action.n })
    // Ping → Pong → Ping → … forever, unless the lane stops it.
    let subscription = store.observe(from: .nextChange) { value in
      if value.isMultiple(of: 2) {
        store.dispatch(Pong(n: value + 1))
      } else {
        store.dispatch(Ping(n: value + 1))
      }
      // Ping(0) has depth 0, so the action carrying n has depth n.
    }
    store.dispatch(Ping(n: 0))
    #expect(store.state == 20)
    #expect(log.issues.count == 1)
    let issue = log.issues.first
    #expect(issue?.kind == .runawayActionChain)
    #expect(issue?.message.contains("Ping → Pong → Ping") == true)
    #expect(issue?.message.contains("(22 actions)") == true)
    subscription.cancel()
    // The lane still works afterwards.
    store.dispatch(Ping(n: 100))
    #expect(store.state == 100)
  }

  @Test func independentChainsDoNotAddUp() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(maxChainDepth: 3, reporter: log)
    let store = Store(initialState: LaneLog(), dispatcher: dispatcher, reducer: laneLogReducer)
    // Each outer action causes exactly one follow-up: chains of depth 1, never runaway.
    let subscription = store.observe(from: .nextChange) { state in
      if let last = state.ids.last, last < 1_000 { store.dispatch(LaneAdd(id: last + 1_000)) }
    }
    for id in 0..<50 { store.dispatch(LaneAdd(id: id)) }
    #expect(store.state.total == 100)
    #expect(log.issues.isEmpty)
    subscription.cancel()
  }
}
