import Foundation
import Sluice
import Testing

@Suite struct SmokeTransactionLockReactionTests {
  struct Info: Equatable, Codable, Sendable {
    var counter = 0
    var text = ""
    var nest = Nest()
    var _internal = 0
  }
  struct Nest: Equatable, Codable, Sendable {
    var foo = 1
    var maybe: Int?
  }
  struct Bump: Action {}
  struct Noop: Action {}

  static let reducer = Reducer<Info>().on(Bump.self) { state, _ in state.counter += 1 }

  @Test func transactionCommitsOnceAndAbortRestores() {
    let dispatcher = Dispatcher()
    let a = Store(initialState: Info(), dispatcher: dispatcher, reducer: Self.reducer)
    let b = Store(initialState: Info(), dispatcher: dispatcher, reducer: Self.reducer)
    let seen = Recorder<String>()
    let subscriptions = [
      a.observe(from: .nextChange) { seen.append("a \($0.counter) \($0.text)") },
      b.observe(\.counter, from: .nextChange) { seen.append("b \($0.old)->\($0.new)") },
    ]
    let outcome = dispatcher.transaction("t") { tx in
      try tx.update(a) { $0.text = "x" }
      tx.dispatch(Bump())
      tx.dispatch(Bump())
    }
    guard case .committed = outcome else {
      Issue.record("not committed: \(outcome)")
      return
    }
    #expect(seen.values == ["a 2 x", "b 0->2"])
    let aborted = dispatcher.transaction { tx in
      try tx.update(a) { $0.counter = 100 }
      try tx.abort()
    }
    guard case .aborted = aborted else {
      Issue.record("not aborted: \(aborted)")
      return
    }
    #expect(a.state.counter == 2)
    #expect(seen.count == 2)
    _ = subscriptions
  }

  @Test func lockQueuesAndReplaysInOrder() {
    let store = Store(initialState: Info(), reducer: Self.reducer)
    let lock = store.dispatcher.pause()
    store.dispatch(Bump())
    store.dispatch(Bump())
    #expect(store.state.counter == 0)
    #expect(store.dispatcher.queueDepth == 2)
    let released = Recorder<Int>()
    lock.onRelease { released.append(1) }
    lock.release()
    lock.release()
    #expect(store.state.counter == 2)
    #expect(released.values == [1])
  }

  @Test func exclusiveRunsNowAndAutoreleasesWhenNothingChanged() {
    let store = Store(initialState: Info(), reducer: Self.reducer)
    let held = Recorder<Lock>()
    let reactor = store.react { reaction in
      reaction.on(\.counter) { _ in if let lock = reaction.lock { held.append(lock) } }
    }
    let lock = store.dispatcher.exclusive(Bump())
    #expect(store.state.counter == 1)
    #expect(held.count == 1)
    store.dispatch(Bump())  // queued behind the exclusive lock
    #expect(store.state.counter == 1)
    held.values.first?.release()
    #expect(store.state.counter == 2)
    #expect(lock.isReleased)
    let noop = store.dispatcher.exclusive(Noop())
    #expect(noop.isReleased)
    store.dispatch(Bump())
    #expect(store.state.counter == 3)
    reactor.cancel()
  }

  @Test func reactionsQueryKeyPathsAndDottedPaths() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let store = Store(
      initialState: Info(), dispatcher: dispatcher,
      reducer: Self.reducer.on(Nest.self) { state, nest in state.nest = nest }
        .on(Noop.self) { state, _ in state._internal += 1 })
    let seen = Recorder<String>()
    let reactor = store.react { reaction in
      reaction.on(\.counter) { seen.append("counter \($0.old)->\($0.new)") }
      reaction.on("nest.foo") { seen.append("foo \($0.old)->\($0.new)") }
      reaction.on("nest.maybe") { seen.append("maybe \($0.new)") }
      reaction.on("_internal") { _ in seen.append("internal") }
      reaction.on(\._internal) { _ in seen.append("internal kp") }
      reaction.on("nest.missing") { _ in seen.append("missing") }
    }
    store.dispatch(Bump())
    store.dispatch(Nest(foo: 5, maybe: 3))
    store.dispatch(Noop())
    #expect(seen.values == ["counter 0->1", "foo 1->5", "maybe 3"])
    #expect(log.issues.map(\.kind) == [.unknownPath])
    reactor.cancel()
  }
}

extension SmokeTransactionLockReactionTests.Nest: Action {}
