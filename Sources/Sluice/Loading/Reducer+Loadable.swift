/// Reducer handlers for the usual request/response pairs.
extension Reducer {
  /// Starts the load at `path` when an action of type `A` arrives (its latest value is kept).
  ///
  /// A request that arrives while the load is in flight changes nothing (Mini-Swift's
  /// `guard !state.counter.isOnProgress`); pair it with an effect whose policy is
  /// ``EffectPolicy/dropWhileRunning`` or ``EffectPolicy/latest``.
  public func on<A: Action, Value: Sendable>(
    _ type: A.Type, start path: WritableKeyPath<State, Loadable<Value>> & Sendable
  ) -> Reducer {
    on(type) { state, _ in
      guard !state[keyPath: path].isLoading else { return }
      state[keyPath: path].start()
    }
  }

  /// Completes the load at `path` with the result a response carries.
  ///
  /// - Parameters:
  ///   - type: The response type.
  ///   - path: Where the loadable lives in the state.
  ///   - keepingValueOnFailure: When `true` (the default) a failure keeps the latest value
  ///     visible beside the error.
  public func on<A: CompletableAction>(
    _ type: A.Type, complete path: WritableKeyPath<State, Loadable<A.Payload>> & Sendable,
    keepingValueOnFailure: Bool = true
  ) -> Reducer {
    on(type) { state, action in
      state[keyPath: path].complete(
        with: action.result, keepingValueOnFailure: keepingValueOnFailure)
    }
  }

  /// Merges the results a keyed response carries into the dictionary at `path`.
  ///
  /// - Parameters:
  ///   - type: The response type.
  ///   - path: Where the dictionary lives in the state.
  ///   - keepingValueOnFailure: When `true` (the default) a failed key keeps its latest value
  ///     visible beside the error.
  public func on<A: KeyedCompletableAction>(
    _ type: A.Type,
    complete path: WritableKeyPath<State, [A.Key: Loadable<A.Payload>]> & Sendable,
    keepingValueOnFailure: Bool = true
  ) -> Reducer {
    on(type) { state, action in
      state[keyPath: path].complete(with: action, keepingValueOnFailure: keepingValueOnFailure)
    }
  }
}
