import Sluice
import Testing

struct RegReadBack: Equatable, Sendable {
  var count = 7
  var readInsideReducer: Int?
}

@Suite("Issue reporter")
struct IssueReporterTests {
  @Test func collectingCapturesIssuesWithTheFileAndLineOfTheCall() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    dispatcher.register(RegUser.self)

    let line = #line + 1
    dispatcher.register(RegUser.self)

    #expect(log.issues.count == 1)
    let issue = log.issues.first
    #expect(issue?.kind == .duplicateRegistration)
    #expect(issue?.fileID == #fileID)
    #expect(issue?.line == UInt(line))
    #expect(issue?.message.contains("RegUser") == true)
  }

  @Test func aRejectedDispatchIsReportedAtTheDispatchCall() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reentrancy: .reject, reporter: log)
    let store = Store(
      initialState: RegTotals(), dispatcher: dispatcher,
      reducer: Reducer<RegTotals>().on(RegTick.self) { state, _ in state.count += 1 })
    let dispatchLine = RegLog<Int>()
    let subscription = store.observe(\.count, from: .nextChange) { [weak store] change in
      guard change.new == 1 else { return }
      dispatchLine.append(#line + 1)
      store?.dispatch(RegTick())
    }

    store.dispatch(RegTick())

    #expect(store.state.count == 1, "the re-entrant action was dropped")
    #expect(log.issues.map(\.kind) == [.reentrantDispatchRejected])
    #expect(log.issues.first?.fileID == #fileID)
    #expect(log.issues.first.map { Int($0.line) } == dispatchLine.all.first)
    subscription.cancel()
  }

  @Test func readingStateInsideItsOwnReducerIsReportedWithoutDeadlockOrCrash() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let itself = RegWeak<Store<RegReadBack>>()
    let store = Store(
      initialState: RegReadBack(), dispatcher: dispatcher,
      reducer: Reducer<RegReadBack>().on(RegTick.self) { state, _ in
        state.readInsideReducer = itself.object?.state.count
        state.count += 1
      })
    itself.object = store

    store.dispatch(RegTick())
    store.dispatch(RegTick())

    #expect(log.issues.map(\.kind) == [.stateReadInsideReducer, .stateReadInsideReducer])
    #expect(log.issues.first?.message.contains("RegReadBack") == true)
    #expect(store.state.count == 9, "the dispatches completed")
    #expect(store.state.readInsideReducer == 7, "the misplaced read returned the initial state")
  }

  @Test func readingAnotherStoresStateInsideAReducerIsFine() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let other = Store(initialState: RegTotals(count: 3), dispatcher: dispatcher)
    let store = Store(
      initialState: RegReadBack(), dispatcher: dispatcher,
      reducer: Reducer<RegReadBack>().on(RegTick.self) { state, _ in
        state.readInsideReducer = other.state.count
      })

    store.dispatch(RegTick())

    #expect(log.issues.isEmpty)
    #expect(store.state.readInsideReducer == 3)
  }

  @Test func aCustomReporterReceivesEveryIssue() {
    let kinds = RegLog<ReportedIssue.Kind>()
    let dispatcher = Dispatcher(reporter: IssueReporter { kinds.append($0.kind) })
    dispatcher.register(RegUser.self)
    dispatcher.register(RegUser.self)
    dispatcher.register(RegUser.self)

    #expect(kinds.all == [.duplicateRegistration, .duplicateRegistration])
  }

  @Test func anIssueDescribesItsLocationMessageAndKind() {
    let issue = ReportedIssue(
      kind: ReportedIssue.Kind("customKind"), message: "Something happened.",
      fileID: "App/View.swift",
      line: 12)

    #expect(issue.description == "App/View.swift:12: Sluice: Something happened. [customKind]")
    #expect(ReportedIssue.Kind.storeOrderCycle.name == "storeOrderCycle")
  }

  @Test func aCollectingReportersIssuesCanBeCleared() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    dispatcher.register(RegUser.self)
    dispatcher.register(RegUser.self)
    #expect(log.issues.count == 1)

    log.clearIssues()

    #expect(log.issues.isEmpty)
  }
}
