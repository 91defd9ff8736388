extension Reducer {
  /// Returns a reducer that also handles the actions of type `A` from which `extract` takes a
  /// payload, such as one case of an `enum` of actions, with `reduce`, and starts `effect` for
  /// them, if given: each case is handled once, its reducer code and its effect side by side.
  ///
  /// `extract` is a case path written as a function, often a key path to a property of the
  /// action that returns the case's payload:
  ///
  /// ```swift
  /// enum SearchAction: Action {
  ///   case queryChanged(String)
  ///   case resultsLoaded([String])
  ///
  ///   var queryChanged: String? { if case .queryChanged(let text) = self { text } else { nil } }
  ///   var resultsLoaded: [String]? { if case .resultsLoaded(let items) = self { items } else { nil } }
  /// }
  ///
  /// let reducer = Reducer<Search>()
  ///   .on(\SearchAction.queryChanged, policy: .latest) { state, text in
  ///     state.query = text
  ///   } effect: { text, context in
  ///     context.dispatch(SearchAction.resultsLoaded(try await api.search(text)))
  ///   }
  ///   .on(\SearchAction.resultsLoaded) { state, items in state.items = items }
  /// ```
  ///
  /// An action from which `extract` takes nothing reaches neither `reduce` nor `effect`, and
  /// does not count for the effect's policy (a `.latest` run is not cancelled by another case).
  /// Cases no handler takes change nothing.
  ///
  /// - Parameters:
  ///   - extract: Returns the payload of the actions this handler takes, `nil` for the others.
  ///   - policy: What `effect` does when a taken action arrives while a run is in flight.
  ///   - id: Names the runs of `effect` (see ``Effects/on(_:policy:id:_:)``).
  ///   - reduce: Changes the state in place for the payload.
  ///   - effect: Work started after the action was reduced, as ``Effects/on(_:policy:id:_:)``
  ///     starts it, with the payload.
  /// - Complexity: Routing an action to the handlers of its type is O(1); each handler of that
  ///   type then calls its `extract` once.
  public func on<A: Action, Payload: Sendable>(
    _ extract: @escaping @Sendable (A) -> Payload?, policy: EffectPolicy = .every,
    id: EffectID? = nil, _ reduce: @escaping @Sendable (inout State, Payload) -> Void,
    effect: (@Sendable (Payload, EffectContext<State>) async throws -> Void)? = nil
  ) -> Reducer {
    var copy = self
    copy.entries.append(
      .typed(ObjectIdentifier(A.self)) { state, pointer in
        guard let payload = extract(pointer.assumingMemoryBound(to: A.self).pointee) else { return }
        reduce(&state, payload)
      })
    if let effect {
      copy.effects = effects.on(A.self, where: extract, policy: policy, id: id, effect)
    }
    return copy
  }

  /// Returns a reducer that also handles the actions equal to `action`, such as a case of an
  /// `enum` of actions that has no payload, with `reduce`, and starts `effect` for them, if
  /// given.
  ///
  /// ```swift
  /// let reducer = Reducer<Search>()
  ///   .on(SearchAction.cleared) { state in state.query = "" }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action this handler takes; others of its type are compared with `==`.
  ///   - policy: What `effect` does when the action arrives while a run is in flight.
  ///   - id: Names the runs of `effect` (see ``Effects/on(_:policy:id:_:)``).
  ///   - reduce: Changes the state in place.
  ///   - effect: Work started after the action was reduced, as ``Effects/on(_:policy:id:_:)``
  ///     starts it.
  public func on<A: Action & Equatable>(
    _ action: A, policy: EffectPolicy = .every, id: EffectID? = nil,
    _ reduce: @escaping @Sendable (inout State) -> Void,
    effect: (@Sendable (EffectContext<State>) async throws -> Void)? = nil
  ) -> Reducer {
    let payloadEffect: (@Sendable ((), EffectContext<State>) async throws -> Void)? =
      effect.map { effect in { @Sendable _, context in try await effect(context) } }
    return on(
      { $0 == action ? () : nil }, policy: policy, id: id, { state, _ in reduce(&state) },
      effect: payloadEffect)
  }
}
