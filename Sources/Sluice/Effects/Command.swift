/// A synchronous command (RxStateFlow's `Command`, a thunk): code that looks at the state and
/// decides what to dispatch, so that views hold no business logic.
///
/// ```swift
/// struct IncreaseCounter: Command {
///   func execute(state: AppState, store: Store<AppState>) {
///     if state.counter < 10 { store.dispatch(CounterEvent.increase) }
///   }
/// }
/// store.dispatch(IncreaseCounter())
/// ```
///
/// `store.dispatch(command)` runs the command at once, on the caller's thread, with the state as
/// it is when the command starts; it returns when the command returns. A command does no
/// asynchronous work itself: it dispatches an action, and an effect on that action
/// (``Effects/on(_:policy:id:_:)``) does the work.
public protocol Command<State>: Sendable {
  /// The state of the store the command runs against.
  associatedtype State: Sendable

  /// Runs the command.
  ///
  /// - Parameters:
  ///   - state: A snapshot of the store's state.
  ///   - store: The store the command was dispatched to.
  func execute(state: State, store: Store<State>)
}
