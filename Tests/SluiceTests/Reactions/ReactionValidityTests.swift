import Foundation
import Testing

@testable import Sluice

/// A `Reaction` is valid only during the reactor call it was made for: kept past it, it answers
/// nothing — no query body runs, `newState` is `nil` — and the misuse is reported.
@Suite struct ReactionValidityTests {
  /// Holds what a reactor kept past its call. `Reaction` is not `Sendable` on purpose; this box
  /// is how a careless program would smuggle one out anyway.
  final class Kept<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
      get { lock.withLock { stored } }
      set { lock.withLock { stored = newValue } }
    }
  }

  @Test func aReactionKeptPastItsCallAnswersNothingAndIsReported() {
    let issues = TxIssues()
    let store = TxFixtures.account(Dispatcher(reporter: issues.reporter))
    let kept = Kept<Reaction<TxAccount>>()
    let heard = Recorder<Change<Int>>()
    let subscription = store.react { reaction in
      reaction.on(\.x) { heard.append($0) }
      if kept.value == nil, reaction.newState?.x == 1 { kept.value = reaction }
    }
    store.dispatch(TxDeposit(amount: 1))
    store.dispatch(TxDeposit(amount: 5))
    #expect(heard.values == [Change(old: 0, new: 1), Change(old: 1, new: 6)])

    let late = Recorder<Change<Int>>()
    kept.value?.on(\.x) { late.append($0) }
    #expect(late.values.isEmpty)
    #expect(kept.value?.newState == nil)
    #expect(issues.kinds.contains(.reactionUsedAfterItsCall))
    withExtendedLifetime(subscription) {}
  }

  @Test func aDottedQueryOnAKeptReactionAnswersNothingAndIsReported() {
    let issues = TxIssues()
    let store = TxFixtures.account(Dispatcher(reporter: issues.reporter))
    let kept = Kept<Reaction<TxAccount>>()
    let subscription = store.react { reaction in
      reaction.on("x") { _ in }
      if kept.value == nil, reaction.newState?.x == 1 { kept.value = reaction }
    }
    store.dispatch(TxDeposit(amount: 1))
    store.dispatch(TxDeposit(amount: 5))

    let late = Recorder<DynamicChange>()
    kept.value?.on("x") { late.append($0) }
    #expect(late.values.isEmpty)
    #expect(issues.kinds == [.reactionUsedAfterItsCall])
    withExtendedLifetime(subscription) {}
  }

  @Test func theDiscoveryReactionKeptPastItsCallRegistersNoQuery() {
    let issues = TxIssues()
    let store = TxFixtures.account(Dispatcher(reporter: issues.reporter))
    let kept = Kept<Reaction<TxAccount>>()
    let heard = Recorder<Int>()
    let subscription = store.react { reaction in
      if kept.value == nil { kept.value = reaction }
      reaction.on(\.x) { heard.append($0.new) }
    }
    // A query asked on the kept discovery reaction would register a new query from outside
    // the lane.
    kept.value?.on(\.moves) { _ in heard.append(-1) }
    store.dispatch(TxDeposit(amount: 2))
    #expect(heard.values == [2])
    #expect(issues.kinds == [.reactionUsedAfterItsCall])
    withExtendedLifetime(subscription) {}
  }

  @Test func aMultiReactionKeptPastItsCallAnswersNothingAndIsReported() {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.account(dispatcher)
    let other = TxFixtures.log(dispatcher)
    let kept = Kept<MultiReaction>()
    let heard = Recorder<Change<Int>>()
    let subscription = dispatcher.react(to: [store, other]) { reaction in
      reaction.at(store)?.on(\.x) { heard.append($0) }
      if kept.value == nil, reaction.at(store)?.newState?.x == 1 { kept.value = reaction }
    }
    store.dispatch(TxDeposit(amount: 1))
    store.dispatch(TxDeposit(amount: 5))
    #expect(heard.values == [Change(old: 0, new: 1), Change(old: 1, new: 6)])

    let late = Recorder<Change<Int>>()
    kept.value?.at(store)?.on(\.x) { late.append($0) }
    #expect(late.values.isEmpty)
    #expect(kept.value?.at(store)?.newState == nil)
    #expect(issues.kinds.contains(.reactionUsedAfterItsCall))
    withExtendedLifetime(subscription) {}
  }
}
