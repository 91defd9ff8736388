import Dispatch
import Foundation
import Sluice
import SluiceTestSupport

// Shared fixtures of the transaction, lock, reaction and dynamic-value tests. Every name starts
// with `Tx` so that it never collides with the helpers of other test files.

// MARK: - States and actions

/// A bank-account-like state: a balance and the number of changes applied to it.
struct TxAccount: Equatable, Codable, Sendable {
  var x = 0
  var moves = 0
}

/// A state that records the ids of the actions it reduced, in order.
struct TxLog: Equatable, Codable, Sendable {
  var ids: [Int] = []
  var total = 0
}

/// A state that is not `Equatable`: the lane cannot tell whether it changed.
struct TxPlainLog: Sendable {
  var ids: [Int] = []
}

struct TxAdd: Action { let id: Int }
struct TxDeposit: Action { let amount: Int }
/// Handled by the reducers below; changes nothing.
struct TxNothing: Action {}
/// Handled by no reducer.
struct TxUnhandled: Action {}

enum TxFixtures {
  static let logReducer = Reducer<TxLog>()
    .on(TxAdd.self) { state, action in
      state.ids.append(action.id)
      state.total += 1
    }
    .on(TxNothing.self) { _, _ in }

  static let plainReducer = Reducer<TxPlainLog>()
    .on(TxAdd.self) { state, action in state.ids.append(action.id) }
    .on(TxNothing.self) { _, _ in }

  static let accountReducer = Reducer<TxAccount>()
    .on(TxDeposit.self) { state, action in
      state.x += action.amount
      state.moves += 1
    }
    .on(TxNothing.self) { _, _ in }

  static func log(_ dispatcher: Dispatcher? = nil) -> Store<TxLog> {
    Store(initialState: TxLog(), dispatcher: dispatcher, reducer: logReducer)
  }

  static func account(_ dispatcher: Dispatcher? = nil, x: Int = 0) -> Store<TxAccount> {
    Store(initialState: TxAccount(x: x), dispatcher: dispatcher, reducer: accountReducer)
  }
}

/// An error thrown from inside a transaction.
struct TxBoom: Error, Equatable {
  let code: Int
}

/// An object reactions and observers are bound to.
final class TxOwner: Sendable {
  let name: String
  init(name: String = "owner") { self.name = name }
}

// MARK: - Waiting without sleeping

/// A one-shot event a test awaits with a time-out that fails instead of hanging.
final class TxEvent: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched under `lock`.
  private let lock = NSLock()
  private var fired = false
  private var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
  private var nextID = 0

  init() {}

  var isSignalled: Bool { lock.withLock { fired } }

  func signal() {
    let ready: [CheckedContinuation<Bool, Never>] = lock.withLock {
      fired = true
      defer { waiters.removeAll() }
      return Array(waiters.values)
    }
    for waiter in ready { waiter.resume(returning: true) }
  }

  /// Waits until the event was signalled; `false` when `timeout` passed first.
  func wait(timeout: Double = hangGuardSeconds) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let id: Int? = lock.withLock {
        if fired { return nil }
        let id = nextID
        nextID += 1
        waiters[id] = continuation
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
        let expired = lock.withLock { waiters.removeValue(forKey: id) }
        expired?.resume(returning: false)
      }
    }
  }
}

/// A thread-safe counter.
final class TxCount: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var stored = 0

  init() {}

  var value: Int { lock.withLock { stored } }
  func increment(by amount: Int = 1) { lock.withLock { stored += amount } }
}

/// An issue reporter that records every issue and signals an event per kind.
final class TxIssues: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched under `lock`.
  private let lock = NSLock()
  private var issues: [ReportedIssue] = []
  private var events: [String: TxEvent] = [:]

  init() {}

  var reporter: IssueReporter {
    IssueReporter { [self] issue in
      let reported = lock.withLock {
        issues.append(issue)
        return event(for: issue.kind)
      }
      reported.signal()
    }
  }

  var all: [ReportedIssue] { lock.withLock { issues } }
  var kinds: [ReportedIssue.Kind] { all.map(\.kind) }

  /// Waits until an issue of `kind` was reported; `false` when `timeout` passed first.
  func wait(for kind: ReportedIssue.Kind, timeout: Double = hangGuardSeconds) async -> Bool {
    await lock.withLock { event(for: kind) }.wait(timeout: timeout)
  }

  /// The event of `kind`; called under `lock`.
  private func event(for kind: ReportedIssue.Kind) -> TxEvent {
    if let existing = events[kind.name] { return existing }
    let new = TxEvent()
    events[kind.name] = new
    return new
  }
}

/// Waits until `condition` holds, for lane work that a test cannot await directly (a task that
/// has not queued its item yet); `false` only after ``hangGuard``: `obsEventually`, which
/// yields, then sleeps briefly between checks, never keeping a pool thread spinning.
func txEventually(_ condition: () -> Bool) async -> Bool {
  await obsEventually(until: condition)
}
