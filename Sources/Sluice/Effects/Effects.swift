/// Side effects of actions (Mini-Swift's `StoreController`, RxStateFlow's commands, Redux
/// Toolkit's listeners): asynchronous work started after an action was reduced, which may
/// dispatch more actions.
///
/// Build them like a ``Reducer``, one action type at a time, and hand them to a store:
///
/// ```swift
/// let effects = Effects<Counter>()
///   .on(SetCounter.self, policy: .dropWhileRunning) { action, context in
///     let value = try await api.save(action.counter)
///     context.dispatch(SetCounterLoaded(counter: value))
///   }
/// let store = Store(initialState: Counter(), reducer: reducer, effects: effects)
/// store.dispatch(SetCounter(counter: 3))
/// await store.settle()   // the effect ran, and SetCounterLoaded was reduced
/// ```
///
/// ## Semantics
/// - An effect runs for every action of its type dispatched on the store's lane, after every
///   store reduced the action and synchronous observers ran — as a Swift task, outside the
///   lane, so it never blocks dispatching. Actions reduced inside a committed transaction start
///   their effects when it commits; an aborted transaction starts none.
/// - A store's effects follow its ``Middleware``: an action the store's middleware dropped starts
///   none of them; an action it replaced starts those of the replacement (with the replacement),
///   not those of the original. The dispatcher's effects (``Dispatcher/addEffects(_:dependencies:)``) follow
///   the action as dispatched: they start unless some store's middleware dropped it and no store
///   took it (reduced it or a replacement of it). An error an action carries is reported by the
///   same rules: not on the channel of a store that dropped it, and not on the dispatcher's when
///   the action was dropped and not taken. Middleware does not see actions reduced in a
///   transaction: their effects start when it commits.
/// - Its ``EffectPolicy`` decides what happens when the action arrives again while a run is in
///   flight: run again, cancel the old run, ignore the new action, or debounce.
/// - Effects are cancelled when their store ends (it is deinitialized; a registered store, when
///   its dispatcher is) or their dispatcher is deinitialized, when the
///   subscription of ``Store/addEffects(_:)`` is cancelled, by id, and by an action
///   (``cancel(_:on:)``). Cancellation is cooperative: the task is cancelled, and whatever it
///   dispatches afterwards is dropped.
/// - An effect that throws reports the error on its store's and dispatcher's ``ErrorChannel``;
///   nothing is re-dispatched.
/// - ``Store/settle(file:line:)`` waits until no effect is in flight and everything they
///   dispatched was processed.
public struct Effects<State: Sendable>: Sendable {
  struct Spec: Sendable {
    let actionType: ObjectIdentifier
    let actionName: String
    let id: EffectID?
    let kind: EffectRegistration.Kind
    let operation:
      @Sendable (any Action, EffectContext<State>) -> (@Sendable () async throws -> Void)?
  }

  var specs: [Spec] = []

  /// Creates an empty set of effects.
  public init() {}

  /// The number of registrations.
  public var count: Int { specs.count }

  /// Adds an effect for actions of type `A`.
  ///
  /// - Parameters:
  ///   - type: The action type that starts the effect.
  ///   - policy: What to do when the action arrives while a run is in flight.
  ///   - id: Names the runs, to cancel them with ``Store/cancelEffects(id:)`` or
  ///     ``cancel(_:on:)``, or to share a policy between registrations; each registration
  ///     has its own id when `nil`.
  ///   - body: The work; it gets the action and an ``EffectContext``.
  public func on<A: Action>(
    _ type: A.Type, policy: EffectPolicy = .every, id: EffectID? = nil,
    _ body: @escaping @Sendable (A, EffectContext<State>) async throws -> Void
  ) -> Effects {
    on(type, where: { $0 }, policy: policy, id: id, body)
  }

  /// Adds an effect for the actions of type `A` from which `extract` takes a payload (an enum's
  /// case); the others neither start it nor count for its policy.
  func on<A: Action, Payload: Sendable>(
    _ type: A.Type, where extract: @escaping @Sendable (A) -> Payload?, policy: EffectPolicy,
    id: EffectID?, _ body: @escaping @Sendable (Payload, EffectContext<State>) async throws -> Void
  ) -> Effects {
    var copy = self
    copy.specs.append(
      Spec(
        actionType: ObjectIdentifier(A.self), actionName: "\(A.self)", id: id,
        kind: .run(policy)
      ) { action, context in
        guard let typed = action as? A, let payload = extract(typed) else { return nil }
        return { try await body(payload, context) }
      })
    return copy
  }

  /// Cancels the runs of `id` whenever an action of type `A` is dispatched.
  public func cancel<A: Action>(_ id: EffectID, on type: A.Type) -> Effects {
    var copy = self
    copy.specs.append(
      Spec(
        actionType: ObjectIdentifier(A.self), actionName: "\(A.self)", id: id, kind: .cancel
      ) { _, _ in nil })
    return copy
  }

  /// These effects followed by `other`'s.
  public func combined(with other: Effects) -> Effects {
    var copy = self
    copy.specs.append(contentsOf: other.specs)
    return copy
  }

  /// Binds the specs to a lane, a state, error channels and dependencies, as one group of
  /// `owner` (`nil` for the dispatcher).
  func registrations(
    group: EffectGroup, owner: AnyStoreCore?, lane: Lane,
    readState: @escaping @Sendable () -> State, errors: ErrorSink, dependencies: Dependencies
  ) -> [EffectRegistration] {
    specs.map { spec in
      let source = ErrorEvent.Source.effect(actionType: spec.actionName)
      return EffectRegistration(
        actionType: spec.actionType, key: lane.effects.key(for: spec.id), kind: spec.kind,
        group: group, owner: owner, errors: errors, source: source, clock: dependencies.clock
      ) { action in
        spec.operation(
          action,
          EffectContext(
            lane: lane, readState: readState, errors: errors, source: source, trigger: action,
            dependencies: dependencies))
      }
    }
  }
}
