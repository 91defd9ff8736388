/// Request/response effects: run an async operation and dispatch its result (Mini-Swift's
/// `Single.dispatch(action:on:)`).
extension Effects {
  /// When a `Request` arrives, runs `operation` and dispatches a `Response` carrying its
  /// result — success or failure (the error is also reported on the error channels). A
  /// cancelled run dispatches nothing.
  ///
  /// - Parameters:
  ///   - request: The request action type.
  ///   - response: The response action type.
  ///   - policy: What to do when a request arrives while one is in flight; the latest wins by
  ///     default.
  ///   - id: Names the runs, to cancel them.
  ///   - operation: The load.
  public func load<Request: Action, Response: CompletableAction>(
    _ request: Request.Type, as response: Response.Type, policy: EffectPolicy = .latest,
    id: EffectID? = nil,
    _ operation:
      @escaping @Sendable (Request, EffectContext<State>) async throws ->
      Response.Payload
  ) -> Effects {
    on(request, policy: policy, id: id) { action, context in
      let result = await Result(loading: { try await operation(action, context) })
      try context.checkCancellation()
      if case .failure(let error) = result { context.report(error.underlying) }
      context.dispatch(Response(result: result))
    }
  }
}

extension Store {
  /// Runs `operation` as an effect and dispatches a `Response` carrying its result (Mini-Swift's
  /// `Single.dispatch(action:on:)`); returns at once.
  ///
  /// ```swift
  /// store.load(CounterLoaded.self) { try await api.counter() }
  /// ```
  @discardableResult
  public func load<Response: CompletableAction>(
    _ response: Response.Type,
    _ operation: @escaping @Sendable () async throws -> Response.Payload
  ) -> EffectTask {
    launch(source: .command("load \(Response.self)")) { context in
      let result = await Result(loading: operation)
      try context.checkCancellation()
      if case .failure(let error) = result { context.report(error.underlying) }
      context.dispatch(Response(result: result))
    }
  }
}
