import Testing

@testable import Sluice

/// What the lane's queue holds for an asynchronous dispatch: small trivial actions are packed
/// into the item (no allocation), every other action is boxed with its own type, and both run
/// as the action they were.
@Suite struct QueuedWorkTests {
  struct Small: Action, Equatable { let value: Int }
  struct Pair: Action, Equatable { let first: Int, second: Int }
  struct Named: Action, Equatable { let name: String }
  enum Step: Action, Equatable {
    case up(Int8)
    case down
  }
  struct Empty: Action, Equatable {}

  @Test func smallTrivialActionsArePackedAndOthersBoxed() {
    #expect(QueuedWork(Small(value: 7)).isPacked)
    #expect(QueuedWork(Step.up(3)).isPacked)
    #expect(QueuedWork(Empty()).isPacked)
    #expect(!QueuedWork(Pair(first: 1, second: 2)).isPacked)
    #expect(!QueuedWork(Named(name: "x")).isPacked)
  }

  @Test func aQueuedActionIsTheActionItWas() {
    #expect(QueuedWork(Small(value: -42)).action as? Small == Small(value: -42))
    #expect(QueuedWork(Step.up(-3)).action as? Step == .up(-3))
    #expect(QueuedWork(Step.down).action as? Step == .down)
    #expect(QueuedWork(Pair(first: 1, second: 2)).action as? Pair == Pair(first: 1, second: 2))
    #expect(QueuedWork(Named(name: "kettle")).action as? Named == Named(name: "kettle"))
  }

  @Test func packedAndBoxedActionsRunInArrivalOrderWithTheirValues() async {
    let dispatcher = Dispatcher()
    let log = Recorder<String>()
    let store = Store(
      initialState: 0, dispatcher: dispatcher,
      reducer: Reducer<Int>()
        .on(Small.self) { state, action in
          state += action.value
          log.append("small \(action.value)")
        }
        .on(Pair.self) { state, action in
          state += action.first * action.second
          log.append("pair \(action.first) \(action.second)")
        }
        .on(Named.self) { _, action in log.append("named \(action.name)") }
        .on(Step.self) { state, action in
          if case .up(let by) = action { state += Int(by) }
          log.append("\(action)")
        })
    let lock = dispatcher.pause()
    store.dispatch(Small(value: 1), mode: .async)
    store.dispatch(Named(name: "a"), mode: .async)
    store.dispatch(Pair(first: 2, second: 3), mode: .async)
    store.dispatch(Step.up(4), mode: .async)
    store.dispatch(Step.down, mode: .async)
    store.dispatch(Small(value: Int.min + 1), mode: .async)
    #expect(dispatcher.queueDepth == 6)
    lock.release()
    #expect(
      log.values == [
        "small 1", "named a", "pair 2 3", "up(4)", "down", "small \(Int.min + 1)",
      ])
    #expect(store.state == 1 + 6 + 4 + Int.min + 1)
  }
}

extension QueuedWork {
  fileprivate var isPacked: Bool {
    if case .packed = self { return true }
    return false
  }

  fileprivate var action: (any Action)? {
    if case .action(let action) = work.kind { return action }
    return nil
  }
}
