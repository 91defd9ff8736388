/// Request/response effects: run an async operation and dispatch its result (Mini-Swift's
/// `Single.dispatch(action:on:)`).
extension Effects {
  /// When a `Request` arrives, runs `operation` and dispatches a `Response` carrying its
  /// result — success or failure (a failed response reports its error on the error channels,
  /// see ``CompletableAction``). A cancelled run dispatches nothing.
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
      try await context.dispatchResult(Response.self) { try await operation(action, context) }
    }
  }
}

extension Effects {
  /// When a `Request` arrives, loads every key it names, concurrently, and dispatches one keyed
  /// `Response` carrying a result per key (Mini-Swift's keyed actions). A cancelled run
  /// dispatches nothing.
  ///
  /// ```swift
  /// Effects<Phonebook>()
  ///   .load(LookUpContacts.self, asKeyed: ContactsLoaded.self, keys: \.phones) { phone, _ in
  ///     try await directory.contact(phone: phone)
  ///   }
  /// ```
  public func load<Request: Action, Response: KeyedCompletableAction>(
    _ request: Request.Type, asKeyed response: Response.Type,
    keys: @escaping @Sendable (Request) -> [Response.Key], policy: EffectPolicy = .latest,
    id: EffectID? = nil,
    _ operation:
      @escaping @Sendable (Response.Key, EffectContext<State>) async throws ->
      Response.Payload
  ) -> Effects {
    on(request, policy: policy, id: id) { action, context in
      let results = await withTaskGroup(
        of: (Response.Key, Result<Response.Payload, LoadError>).self
      ) { group in
        for key in keys(action) {
          group.addTask { (key, await Result(loading: { try await operation(key, context) })) }
        }
        var results: [Response.Key: Result<Response.Payload, LoadError>] = [:]
        for await (key, result) in group { results[key] = result }
        return results
      }
      try context.checkCancellation()
      context.dispatch(Response(results: results))
    }
  }
}

extension EffectContext {
  /// Runs `operation` and dispatches a `Response` carrying its result, unless the effect was
  /// cancelled meanwhile (then it throws `CancellationError` and dispatches nothing).
  func dispatchResult<Response: CompletableAction>(
    _ response: Response.Type,
    of operation: @Sendable () async throws -> Response.Payload
  ) async throws {
    let result = await Result(loading: operation)
    try checkCancellation()
    dispatch(Response(result: result))
  }
}
