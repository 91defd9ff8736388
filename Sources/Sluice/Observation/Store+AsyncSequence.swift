extension Store {
  /// The current state, then the state after every change, as an `AsyncSequence`.
  ///
  /// Every state is buffered until consumed, in lane order. Iteration ends when the consuming
  /// task is cancelled (the underlying observer is removed then), or when the store is
  /// deinitialized.
  ///
  /// ```swift
  /// for await state in store.values { print(state.counter) }
  /// ```
  public var values: AsyncStream<State> {
    AsyncStream { continuation in
      let subscription = observe { continuation.yield($0) }
      continuation.onTermination = { _ in subscription.cancel() }
      core.onEndOfStore { continuation.finish() }
    }
  }

  /// The current value at `path`, then each new value when it changes, as an `AsyncSequence`.
  ///
  /// Iteration ends when the consuming task is cancelled, or when the store is deinitialized.
  ///
  /// ```swift
  /// for await counter in store.values(of: \.counter) { print(counter) }
  /// ```
  @inlinable
  public func values<Value: Equatable & Sendable>(
    of path: KeyPath<State, Value> & Sendable
  ) -> AsyncStream<Value> {
    AsyncStream { continuation in
      let subscription = observe(path) { continuation.yield($0.new) }
      continuation.onTermination = { _ in subscription.cancel() }
      core.onEndOfStore { continuation.finish() }
    }
  }
}
