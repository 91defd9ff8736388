/// How a store's state changes in response to actions: a list of handlers, each for one action
/// type or for every action.
///
/// Handlers for one action type are found by the action's type identity in a table built when
/// the store is created, so a store with fifty handlers does not try fifty casts:
///
/// ```swift
/// let reducer = Reducer<AppState>()
///   .on(StepChangeRequested.self) { state, action in state.step = action.step }
///   .on(Counter.self) { state, action in
///     switch action {
///     case .increment: state.counter += state.step
///     case .decrement: state.counter -= state.step
///     }
///   }
/// ```
///
/// A catch-all handler sees every action, in the style of Unicore and RxStateFlow:
///
/// ```swift
/// let reducer = Reducer<AppState> { state, action in
///   if let change = action as? StepChangeRequested { state.step = change.step }
/// }
/// ```
///
/// When several handlers match an action they run in the order they were added.
///
/// A handler may carry the effect its action starts, beside the code that reduces it; a store
/// made with the reducer runs those effects like the ones it is given as ``Effects``:
///
/// ```swift
/// let reducer = Reducer<Search>()
///   .on(QueryChanged.self, policy: .latest) { state, action in
///     state.query = action.text
///   } effect: { action, context in
///     context.dispatch(ResultsLoaded(items: try await api.search(action.text)))
///   }
/// ```
///
/// An app whose actions are one `enum` gives each case a handler of its own: `on` takes a
/// function that returns the case's payload (`.on(\SearchAction.queryChanged) { state, text in
/// … }`), or, for a case without one, the action itself (`.on(SearchAction.cleared) { state in
/// … }`).
public struct Reducer<State: Sendable>: Sendable {
  @usableFromInline
  enum Entry: Sendable {
    /// A handler for one action type; the pointer points at a value of exactly that type.
    case typed(ObjectIdentifier, @Sendable (inout State, UnsafeRawPointer) -> Void)
    /// A handler for every action.
    case any(@Sendable (inout State, any Action) -> Void)
  }

  @usableFromInline
  var entries: [Entry]

  /// The effects the handlers carry, which a store made with this reducer runs before the ones
  /// it is given.
  @usableFromInline
  var effects = Effects<State>()

  /// A reducer that changes nothing; add handlers with `on`.
  public init() { entries = [] }

  /// A reducer with one catch-all handler, called with every action.
  ///
  /// - Parameter reduce: Changes the state in place for the action, or leaves it alone.
  public init(_ reduce: @escaping @Sendable (inout State, any Action) -> Void) {
    entries = [.any(reduce)]
  }

  /// Returns a reducer that also handles actions of type `type` with `reduce`, and starts
  /// `effect` for them, if given.
  ///
  /// - Parameters:
  ///   - type: The action type this handler receives; only actions of exactly this type reach it.
  ///   - policy: What `effect` does when the action arrives while a run is in flight.
  ///   - id: Names the runs of `effect` (see ``Effects/on(_:policy:id:_:)``).
  ///   - reduce: Changes the state in place for the action.
  ///   - effect: Work started after the action was reduced, as ``Effects/on(_:policy:id:_:)``
  ///     starts it.
  /// - Complexity: Routing an action to its handlers is O(1) in the number of handlers.
  @inlinable
  public func on<A: Action>(
    _ type: A.Type, policy: EffectPolicy = .every, id: EffectID? = nil,
    _ reduce: @escaping @Sendable (inout State, A) -> Void,
    effect: (@Sendable (A, EffectContext<State>) async throws -> Void)? = nil
  ) -> Reducer {
    var copy = self
    copy.entries.append(
      .typed(ObjectIdentifier(type)) { state, pointer in
        reduce(&state, pointer.assumingMemoryBound(to: A.self).pointee)
      })
    if let effect { copy.effects = effects.on(type, policy: policy, id: id, effect) }
    return copy
  }

  /// Applies the handlers for `action` to `state`, in the order they were added, without a
  /// store: a reducer tested as a plain function (Unicore's `reducer(state, action)`).
  ///
  /// ```swift
  /// var state = AppState()
  /// reducer.reduce(&state, StepChangeRequested(step: 5))
  /// #expect(state.step == 5)
  /// ```
  ///
  /// - Parameters:
  ///   - state: The state to change in place.
  ///   - action: The action; its dynamic type selects the typed handlers.
  public func reduce(_ state: inout State, _ action: some Action) {
    let id = ObjectIdentifier(type(of: action))
    withUnsafePointer(to: action) { pointer in
      for entry in entries {
        switch entry {
        case .typed(let type, let handler):
          if type == id { handler(&state, UnsafeRawPointer(pointer)) }
        case .any(let handler):
          handler(&state, action)
        }
      }
    }
  }

  /// Returns a reducer that runs this reducer's handlers, then `other`'s (and their effects).
  public func combined(with other: Reducer) -> Reducer {
    var copy = self
    copy.entries.append(contentsOf: other.entries)
    copy.effects = effects.combined(with: other.effects)
    return copy
  }

  /// Combines reducers; for each action their handlers run in the order given.
  public static func combine(_ reducers: Reducer...) -> Reducer {
    reducers.reduce(Reducer()) { $0.combined(with: $1) }
  }

  /// Lifts this reducer, written for a part of a larger state, to the larger state; its
  /// handlers' effects read that part as their ``EffectContext/state``.
  ///
  /// ```swift
  /// let app = Reducer<AppState>.combine(
  ///   counterReducer.scoped(to: \AppState.counter),
  ///   settingsReducer.scoped(to: \AppState.settings))
  /// ```
  public func scoped<Parent>(to path: WritableKeyPath<Parent, State> & Sendable) -> Reducer<Parent>
  {
    var lifted = Reducer<Parent>()
    lifted.effects = effects.scoped(to: path)
    lifted.entries = entries.map { entry in
      switch entry {
      case .typed(let id, let reduce):
        return .typed(id) { parent, pointer in reduce(&parent[keyPath: path], pointer) }
      case .any(let reduce):
        return .any { parent, action in reduce(&parent[keyPath: path], action) }
      }
    }
    return lifted
  }
}
