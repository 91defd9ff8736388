import Sluice
import Testing

struct RegTotals: Equatable, Sendable {
  var count = 0
}

struct RegTick: Action {}

/// A store on `dispatcher` whose reducer records `name` in `order` for every `RegTick`.
private func regRecordingStore(
  _ name: String, on dispatcher: Dispatcher, into order: RegLog<String>
) -> Store<RegTotals> {
  Store(
    initialState: RegTotals(), dispatcher: dispatcher,
    reducer: Reducer<RegTotals>().on(RegTick.self) { state, _ in
      order.append(name)
      state.count += 1
    })
}

@Suite("Store order (waitFor)")
struct StoreOrderTests {
  @Test func aStoreCreatedFirstThatWaitsForAnotherReducesAfterIt() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let order = RegLog<String>()
    let summary = regRecordingStore("summary", on: dispatcher, into: order)
    let prices = regRecordingStore("prices", on: dispatcher, into: order)

    summary.waitFor(prices)
    dispatcher.dispatch(RegTick())

    #expect(order.all == ["prices", "summary"])
  }

  @Test func waitingIsTransitive() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let order = RegLog<String>()
    let a = regRecordingStore("a", on: dispatcher, into: order)
    let b = regRecordingStore("b", on: dispatcher, into: order)
    let c = regRecordingStore("c", on: dispatcher, into: order)

    a.waitFor(b)
    b.waitFor(c)
    dispatcher.dispatch(RegTick())

    #expect(order.all == ["c", "b", "a"])
  }

  @Test func aStoreThatWaitsCanReadTheOtherStoresNewStateInItsReducer() {
    // Flux's point of waitFor: the waiting store derives its state from the updated one.
    let dispatcher = Dispatcher(reporter: .ignoring)
    let source = RegWeak<Store<RegTotals>>()
    let doubled = Store(
      initialState: RegTotals(), dispatcher: dispatcher,
      reducer: Reducer<RegTotals>().on(RegTick.self) { state, _ in
        state.count = 2 * (source.object?.state.count ?? -1)
      })
    let counter = Store(
      initialState: RegTotals(), dispatcher: dispatcher,
      reducer: Reducer<RegTotals>().on(RegTick.self) { state, _ in state.count += 1 })
    source.object = counter

    doubled.waitFor(counter)
    dispatcher.dispatch(RegTick())
    dispatcher.dispatch(RegTick())

    #expect(counter.state.count == 2)
    #expect(doubled.state.count == 4)
  }

  @Test func aCycleIsReportedAndIgnored() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let order = RegLog<String>()
    let a = regRecordingStore("a", on: dispatcher, into: order)
    let b = regRecordingStore("b", on: dispatcher, into: order)
    let c = regRecordingStore("c", on: dispatcher, into: order)

    a.waitFor(b)
    b.waitFor(c)
    let cycleLine = #line + 1
    c.waitFor(a)
    dispatcher.dispatch(RegTick())

    #expect(order.all == ["c", "b", "a"], "the edge closing the cycle was ignored")
    #expect(log.issues.map(\.kind) == [.storeOrderCycle])
    #expect(log.issues.first?.fileID == #fileID)
    #expect(log.issues.first?.line == UInt(cycleLine))
  }

  @Test func aStoreThatWaitsForItselfIsReported() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let order = RegLog<String>()
    let a = regRecordingStore("a", on: dispatcher, into: order)
    let b = regRecordingStore("b", on: dispatcher, into: order)

    a.waitFor(a)
    dispatcher.dispatch(RegTick())

    #expect(log.issues.map(\.kind) == [.storeOrderCycle])
    #expect(order.all == ["a", "b"])
    withExtendedLifetime(b) {}
  }

  @Test func waitingForAStoreOnAnotherDispatcherIsReportedAndIgnored() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let order = RegLog<String>()
    let local = regRecordingStore("local", on: dispatcher, into: order)
    let foreign = regRecordingStore("foreign", on: Dispatcher(reporter: .ignoring), into: order)

    local.waitFor(foreign)
    dispatcher.dispatch(RegTick())

    #expect(log.issues.map(\.kind) == [.foreignStore])
    #expect(order.all == ["local"])
  }

  @Test func anOrderingOutlivesNeitherStore() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let order = RegLog<String>()
    let waiting = regRecordingStore("waiting", on: dispatcher, into: order)
    do {
      let awaited = regRecordingStore("awaited", on: dispatcher, into: order)
      waiting.waitFor(awaited)
      dispatcher.dispatch(RegTick())
    }

    dispatcher.dispatch(RegTick())

    #expect(order.all == ["awaited", "waiting", "waiting"])
  }
}
