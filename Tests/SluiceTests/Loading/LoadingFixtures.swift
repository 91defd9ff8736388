import Foundation
import Sluice
import Testing

// Shared fixtures of the Loading tests. Every type starts with `Ld` (Sluice-side helpers) or
// `Mini` (the Mini-Swift README's names) so that it never collides with other test files.

// MARK: - Status checks

/// The tests' shorthand for matching a loadable's `status` (the library has `isLoading` only).
extension Loadable {
  var isIdle: Bool {
    if case .idle = status { return true }
    return false
  }
  var isLoaded: Bool {
    if case .loaded = status { return true }
    return false
  }
  var isFailed: Bool { error != nil }
  var isFinished: Bool { isLoaded || isFailed }
}

// MARK: - Errors

/// An error that is not `Equatable`: two of them are different failures even with one message.
struct LdFailure: Error, CustomStringConvertible {
  let message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}

/// An `Equatable` error: equal codes are the same failure.
enum LdCode: Error, Equatable {
  case notFound
  case offline(retryIn: Int)
}

/// Another `Equatable` error type, to check that errors of different types never compare equal.
enum LdOtherCode: Error, Equatable {
  case notFound
}

// MARK: - Metadata

// MARK: - Dates

/// Fixed dates for timestamp checks (never `Date()` when a test compares timestamps).
enum LdDates {
  static let t0 = Date(timeIntervalSince1970: 1_000)
  static let t1 = Date(timeIntervalSince1970: 2_000)
  static let t2 = Date(timeIntervalSince1970: 3_000)
  static let t3 = Date(timeIntervalSince1970: 4_000)
}

// MARK: - Thread-safe helpers

/// A value guarded by a lock, readable and writable from any thread.
final class LdBox<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `stored` is only touched under `lock`.
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value { lock.withLock { stored } }

  func update<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

/// Plays Mini-Swift's `StoreController`: every request suspends until the test answers it with
/// ``succeed(_:)`` or ``fail(_:)`` (answers given before a request arrives are kept, in order).
/// A cancelled request resumes at once with `CancellationError`. Nothing sleeps.
final class LdController<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched under `lock`.
  private struct Waiter {
    let id: Int
    let continuation: CheckedContinuation<Result<Value, any Error>, Never>
  }

  private let lock = NSLock()
  private var waiters: [Waiter] = []
  private var answers: [Result<Value, any Error>] = []
  private var cancelled: Set<Int> = []
  private var nextID = 0
  private var requestLog: [Int] = []

  init() {}

  /// The arguments of the requests received so far, in order.
  var requests: [Int] { lock.withLock { requestLog } }

  /// How many requests arrived.
  var callCount: Int { lock.withLock { requestLog.count } }

  /// A request (Mini's `storeController.counter(number)`); suspends until answered.
  func request(_ argument: Int) async throws -> Value {
    let id: Int = lock.withLock {
      requestLog.append(argument)
      nextID += 1
      return nextID
    }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
        let now: Result<Value, any Error>? = lock.withLock {
          if cancelled.contains(id) { return .failure(CancellationError()) }
          if !answers.isEmpty { return answers.removeFirst() }
          waiters.append(Waiter(id: id, continuation: continuation))
          return nil
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      let waiter: Waiter? = lock.withLock {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
          cancelled.insert(id)
          return nil
        }
        return waiters.remove(at: index)
      }
      waiter?.continuation.resume(returning: .failure(CancellationError()))
    }
    return try result.get()
  }

  /// Answers the oldest waiting request (or the next one to arrive) with a value.
  func succeed(_ value: Value) { answer(.success(value)) }

  /// Answers the oldest waiting request (or the next one to arrive) with an error.
  func fail(_ error: any Error) { answer(.failure(error)) }

  private func answer(_ result: Result<Value, any Error>) {
    let waiter: Waiter? = lock.withLock {
      if waiters.isEmpty {
        answers.append(result)
        return nil
      }
      return waiters.removeFirst()
    }
    waiter?.continuation.resume(returning: result)
  }
}

// MARK: - Mini-Swift "Promises" flow

/// Mini's `TestState` over a `Promise<Int>`.
struct MiniPromiseState: Equatable, Sendable {
  var counter: Loadable<Int> = .idle
}

/// Mini's request.
struct MiniSetCounterAction: Action { let counter: Int }

/// Mini's response, carrying the result of the request (a `CompletableAction`).
struct MiniSetCounterActionLoaded: CompletableAction { let result: Result<Int, LoadError> }

enum MiniPromiseFixtures {
  /// Mini's reducer group: the request starts the load unless one is in flight, the response
  /// fills it.
  static let reducer = Reducer<MiniPromiseState>()
    .on(MiniSetCounterAction.self) { state, _ in
      guard !state.counter.isLoading else { return }
      state.counter.start()
    }
    .on(MiniSetCounterActionLoaded.self) { state, action in
      state.counter.complete(with: action.result)
    }

  /// Mini's `StoreController` as a request/response effect.
  static func effects(
    _ controller: LdController<Int>, policy: EffectPolicy = .dropWhileRunning
  ) -> Effects<MiniPromiseState> {
    Effects<MiniPromiseState>()
      .load(MiniSetCounterAction.self, as: MiniSetCounterActionLoaded.self, policy: policy) {
        action, _ in
        try await controller.request(action.counter)
      }
  }

  static func store(
    _ controller: LdController<Int>, policy: EffectPolicy = .dropWhileRunning,
    initialState: MiniPromiseState = MiniPromiseState(), dispatcher: Dispatcher? = nil
  ) -> Store<MiniPromiseState> {
    Store(
      initialState: initialState, dispatcher: dispatcher, reducer: reducer,
      effects: effects(controller, policy: policy))
  }
}

// MARK: - Mini-Swift "Tasks" flow

/// Mini's `TestState` over `counter: Int?` and `counterTask: AnyTask`.
struct MiniTaskState: Equatable, Sendable {
  var counter: Int?
  var counterTask: TaskStatus

  init(counter: Int? = nil, counterTask: TaskStatus = .idle) {
    self.counter = counter
    self.counterTask = counterTask
  }
}

/// Mini's request (Tasks variant).
struct MiniSetCounterTaskAction: Action { let counter: Int }

/// Mini's response (Tasks variant): the counter and the status of the task.
struct MiniSetCounterTaskActionLoaded: Action {
  let counter: Int?
  let counterTask: TaskStatus
}

enum MiniTaskFixtures {
  static let reducer = Reducer<MiniTaskState>()
    .on(MiniSetCounterTaskAction.self) { state, _ in
      guard !state.counterTask.isLoading else { return }
      state = MiniTaskState(counterTask: .loading())
    }
    .on(MiniSetCounterTaskActionLoaded.self) { state, action in
      guard state.counterTask.isLoading else { return }
      state = MiniTaskState(counter: action.counter, counterTask: action.counterTask)
    }

  /// Mini's `StoreController.counter(_:)`: always answers with a loaded action, success or not.
  static func effects(_ controller: LdController<Int>) -> Effects<MiniTaskState> {
    Effects<MiniTaskState>()
      .on(MiniSetCounterTaskAction.self, policy: .dropWhileRunning) { action, context in
        do {
          let counter = try await controller.request(action.counter)
          context.dispatch(
            MiniSetCounterTaskActionLoaded(counter: counter, counterTask: .succeeded()))
        } catch {
          context.dispatch(
            MiniSetCounterTaskActionLoaded(counter: nil, counterTask: .failed(error)))
        }
      }
  }

  static func store(_ controller: LdController<Int>) -> Store<MiniTaskState> {
    Store(initialState: MiniTaskState(), reducer: reducer, effects: effects(controller))
  }
}

// MARK: - Mini-Swift EmptyAction

/// Mini's `ActivateVoucher` request.
struct MiniActivateVoucher: Action { let code: Int }

/// Mini's `ActivateVoucherLoaded: EmptyAction` (`Promise<Void>` becomes `Result<Done, _>`).
struct MiniActivateVoucherLoaded: CompletableAction { let result: Result<Done, LoadError> }

struct MiniVoucherState: Equatable, Sendable {
  var activation: TaskStatus = .idle
}

enum MiniVoucherFixtures {
  static let reducer = Reducer<MiniVoucherState>()
    .on(MiniActivateVoucher.self, start: \.activation)
    .on(MiniActivateVoucherLoaded.self, complete: \.activation)

  static func store(_ controller: LdController<Int>) -> Store<MiniVoucherState> {
    let effects = Effects<MiniVoucherState>()
      .load(MiniActivateVoucher.self, as: MiniActivateVoucherLoaded.self) { action, _ in
        _ = try await controller.request(action.code)
        return Done()
      }
    return Store(initialState: MiniVoucherState(), reducer: reducer, effects: effects)
  }
}

// MARK: - Mini-Swift KeyedCompletableAction

struct MiniContact: Equatable, Sendable {
  let name: String
  let phone: String
}

/// Asks for the contacts of some phone numbers.
struct MiniRequestContactsAction: Action { let phones: [String] }

/// Mini's `RequestContactLoadedAction`: one result per phone number.
struct MiniRequestContactLoadedAction: KeyedCompletableAction {
  let results: [String: Result<MiniContact?, LoadError>]
}

struct MiniContactsState: Equatable, Sendable {
  var contactsByPhone: [String: Loadable<MiniContact?>] = [:]
}

/// A phone book: known numbers give a contact, `"000"` gives nobody, anything else fails.
struct MiniPhoneBook: Sendable {
  static let ada = MiniContact(name: "Ada", phone: "111")
  static let alan = MiniContact(name: "Alan", phone: "222")

  func contact(for phone: String) throws -> MiniContact? {
    switch phone {
    case "111": Self.ada
    case "222": Self.alan
    case "000": nil
    default: throw LdCode.notFound
    }
  }
}

enum MiniContactsFixtures {
  static let reducer = Reducer<MiniContactsState>()
    .on(MiniRequestContactsAction.self) { state, action in
      state.contactsByPhone.startLoading(action.phones)
    }
    .on(MiniRequestContactLoadedAction.self, complete: \.contactsByPhone)

  static func store(gate: LdController<Int>) -> Store<MiniContactsState> {
    let book = MiniPhoneBook()
    let effects = Effects<MiniContactsState>()
      .on(MiniRequestContactsAction.self) { action, context in
        _ = try await gate.request(action.phones.count)
        var results: [String: Result<MiniContact?, LoadError>] = [:]
        for phone in action.phones {
          results[phone] = await Result(loading: { try book.contact(for: phone) })
        }
        context.dispatch(MiniRequestContactLoadedAction(results: results))
      }
    return Store(initialState: MiniContactsState(), reducer: reducer, effects: effects)
  }
}
