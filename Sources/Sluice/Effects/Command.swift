/// A synchronous command (RxStateFlow's `Command`, a thunk): code that looks at the state and
/// decides what to dispatch, so that views hold no business logic.
///
/// ```swift
/// struct IncreaseCounter: Command {
///   func execute(state: AppState, dispatch: Dispatch) {
///     if state.counter < 10 { dispatch(CounterEvent.increase) }
///   }
/// }
/// store.dispatch(IncreaseCounter())
/// ```
///
/// The command runs on the caller's thread, with the state as it is when the command starts.
public protocol Command<State>: Sendable {
  /// The state of the store the command runs against.
  associatedtype State: Sendable

  /// Runs the command.
  ///
  /// - Parameters:
  ///   - state: A snapshot of the store's state.
  ///   - dispatch: Dispatches actions to the store's lane.
  func execute(state: State, dispatch: Dispatch)
}

/// An asynchronous command: work that runs as a task, like an effect, with a state snapshot and
/// an ``EffectContext``.
///
/// ```swift
/// struct RefreshUser: AsyncCommand {
///   let api: API
///   func execute(state: Session, context: EffectContext<Session>) async throws {
///     guard state.user != nil else { return }       // conditional dispatch
///     context.dispatch(UserRefreshed(user: try await api.currentUser()))
///   }
/// }
/// store.dispatch(RefreshUser(api: api))            // returns an EffectTask at once
/// await store.settle()
/// ```
///
/// The task is cancelled when the store ends (it is deinitialized; a registered store, when its
/// dispatcher is); an error it throws is reported on the
/// store's ``ErrorChannel``. ``Dispatcher/settle(file:line:)`` waits for it.
public protocol AsyncCommand<State>: Sendable {
  /// The state of the store the command runs against.
  associatedtype State: Sendable

  /// Runs the command.
  ///
  /// - Parameters:
  ///   - state: A snapshot of the store's state when the command was dispatched.
  ///   - context: The current state, dispatching and cancellation.
  func execute(state: State, context: EffectContext<State>) async throws
}

/// Dispatches actions to a lane; what a ``Command`` gets.
public struct Dispatch: Sendable {
  let lane: Lane

  /// Dispatches `action`, like ``Dispatcher/dispatch(_:mode:file:line:)``.
  public func callAsFunction<A: Action>(
    _ action: A, mode: DispatchMode = .sync, file: StaticString = #fileID, line: UInt = #line
  ) {
    lane.dispatch(action, mode: mode, file: file, line: line)
  }
}
