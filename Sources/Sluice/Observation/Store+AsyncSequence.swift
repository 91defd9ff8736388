extension Store {
  /// The current state, then the state after every change, as an `AsyncSequence`.
  ///
  /// Every state is buffered until consumed, in lane order. The stream ends — and its observer
  /// is removed — when the consuming task is cancelled, when nothing holds the stream any more,
  /// or when the store ends (it is deinitialized; a registered store, when its dispatcher is).
  /// Leaving a `for await` loop with `break` ends the stream
  /// once its iterator is released at the end of the loop (a stream also kept in a variable
  /// ends when that variable goes too).
  ///
  /// ```swift
  /// for await state in store.values { print(state.counter) }
  /// ```
  public var values: AsyncStream<State> {
    makeValues { continuation in observe { continuation.yield($0) } }
  }

  /// The current value at `path`, then each new value when it changes, as an `AsyncSequence`.
  ///
  /// The stream ends like ``values`` does: when the consuming task is cancelled, when nothing
  /// holds the stream any more (leaving `for await` with `break` ends it once its iterator is
  /// released), or when the store ends.
  ///
  /// ```swift
  /// for await counter in store.values(of: \.counter) { print(counter) }
  /// ```
  @inlinable
  public func values<Value: Equatable & Sendable>(
    of path: KeyPath<State, Value> & Sendable
  ) -> AsyncStream<Value> {
    makeValues { continuation in observe(path) { continuation.yield($0.new) } }
  }

  /// A stream fed by the observer `observe` registers. When the stream ends, for whatever
  /// reason, the observer is cancelled and the stream leaves the store's end-of-store list.
  @usableFromInline
  func makeValues<Element: Sendable>(
    _ observe: (AsyncStream<Element>.Continuation) -> Subscription
  ) -> AsyncStream<Element> {
    AsyncStream { continuation in
      let subscription = observe(continuation)
      let ends = core.valueStreamEnds
      let token = ends.add { continuation.finish() }
      continuation.onTermination = { _ in
        subscription.cancel()
        ends.remove(token)
      }
    }
  }

  /// The number of `values` streams of this store that have not ended (for tests).
  var valueStreamCount: Int { core.valueStreamEnds.count }
}
