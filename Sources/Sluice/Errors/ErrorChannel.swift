/// The recent errors of a store or dispatcher, observable and as a stream (RxStateFlow's
/// `errors`).
///
/// ```swift
/// let subscription = store.errors.observe { event in log.error("\(event)") }
/// for await event in dispatcher.errors.events { showBanner(event.error) }
/// store.errors.recent.last?.error
/// ```
///
/// A store's channel receives the errors of its effects and loads, and errors carried by
/// actions it handles; the dispatcher's channel receives every error on its lane. The channel
/// keeps the latest ``capacity`` events.
public final class ErrorChannel: Sendable {
  private struct Contents {
    var recent: [ErrorEvent] = []
    var total = 0
    var observers: [Sink<ErrorEvent>] = []
    var streams: [UInt64: AsyncStream<ErrorEvent>.Continuation] = [:]
    var nextStream: UInt64 = 0
  }

  /// How many events ``recent`` keeps.
  public let capacity: Int
  private let contents = Guarded(Contents())

  init(capacity: Int = 50) {
    self.capacity = max(1, capacity)
  }

  /// The latest events, oldest first.
  public var recent: [ErrorEvent] { contents.withLock { $0.recent } }

  /// The latest event, if any.
  public var last: ErrorEvent? { contents.withLock { $0.recent.last } }

  /// How many events were reported since the channel was made (not only the recent ones).
  public var totalCount: Int { contents.withLock { $0.total } }

  /// Forgets the recent events (``totalCount`` keeps counting).
  public func clear() {
    contents.withLock { $0.recent.removeAll() }
  }

  /// Calls `body` with each event reported from now on.
  ///
  /// Cancelling the subscription waits for a running call like a store observer's does (see
  /// ``Subscription``); a channel knows no dispatcher, so a cancel that gives up waiting is
  /// reported to ``IssueReporter/default``.
  ///
  /// - Parameters:
  ///   - delivery: Where `body` runs: on the reporting thread (the default), on a queue, or on
  ///     the main actor.
  ///   - body: The observer.
  public func observe(
    on delivery: Delivery = .synchronous, _ body: @escaping @Sendable (ErrorEvent) -> Void
  ) -> Subscription {
    let sink = Sink<ErrorEvent>(delivery: delivery, serialized: true, body: body)
    contents.withLock { $0.observers.append(sink) }
    return Subscription { [weak self] in
      let waited = sink.gate.cancel()
      self?.contents.withLock { $0.observers.removeAll { $0 === sink } }
      // A channel knows no dispatcher: the default reporter hears about a cancel that gave up.
      if !waited { IssueReporter.default.report(Subscription.cancelWaitedTooLong(for: "errors")) }
    }
  }

  /// The events reported from now on, as an `AsyncSequence`; it ends when the consuming task is
  /// cancelled.
  public var events: AsyncStream<ErrorEvent> {
    AsyncStream { continuation in
      let id = contents.withLock { contents in
        defer { contents.nextStream += 1 }
        contents.streams[contents.nextStream] = continuation
        return contents.nextStream
      }
      continuation.onTermination = { [weak self] _ in
        _ = self?.contents.withLock { $0.streams.removeValue(forKey: id) }
      }
    }
  }

  func receive(_ event: ErrorEvent) {
    let (observers, streams) = contents.withLock { contents in
      contents.recent.append(event)
      if contents.recent.count > capacity {
        contents.recent.removeFirst(contents.recent.count - capacity)
      }
      contents.total += 1
      return (contents.observers, Array(contents.streams.values))
    }
    for observer in observers where !observer.gate.isCancelled { observer.send(event) }
    for stream in streams { stream.yield(event) }
  }
}

/// The channels an error goes to: a store's, then its dispatcher's.
struct ErrorSink: Sendable {
  let channels: [ErrorChannel]

  func report(_ event: ErrorEvent) {
    for channel in channels { channel.receive(event) }
  }
}
