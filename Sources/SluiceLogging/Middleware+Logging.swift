import Logging
import Sluice

extension Middleware {
  /// Middleware that logs each action the store reduces: its type, how long the reduction took,
  /// and every part of the state it changed, old → new.
  ///
  /// Each reduced action becomes one record at `level`, such as
  /// `Store<TodoList> reduced TodoToggled in 0.012 ms, 1 change`, with this metadata:
  ///
  /// | Key | Value |
  /// | --- | --- |
  /// | `sluice.store` | `label` |
  /// | `sluice.action` | The action's type name, such as `"TodoToggled"` |
  /// | `sluice.duration` | From the `before` hooks to the `after` hooks, on a monotonic clock, such as `"0.012 ms"` |
  /// | `sluice.changes` | The changed parts of the state, such as `["todos.3.done: false → true"]` |
  ///
  /// Only the action's *type* is logged, never its value, which may hold a password or a token.
  /// Changes are found by reading the states before and after by reflection, as the inspector
  /// shows them (no conformance is needed: a property is named as declared, even where an
  /// `Encodable` conformance calls it otherwise), and comparing the trees; they are named by
  /// dotted paths in path order, at most 100 of them (a last line counts the rest). A part
  /// whose value has a different kind after (`null` → an object, say) is one change, its
  /// values written whole.
  ///
  /// `redacting` hides sensitive parts: they are written `<redacted>` and their values are
  /// never formatted (see `Redaction`; its paths start at the state).
  ///
  /// When `logger` would drop a record at `level`, the middleware does nothing else: it reads
  /// the clock, reads and compares no state. Otherwise it reads both states for every
  /// reduced action, which costs time proportional to the state's size: use it to debug.
  ///
  /// Actions that no reducer of the store handles, and actions that middleware before this
  /// one dropped, are not logged, as the store runs no `before` or `after` hook for them; a
  /// committed transaction is logged as its `TransactionCommitted` event.
  ///
  /// ```swift
  /// var logger = Logger(label: "app.state")
  /// logger.logLevel = .debug
  /// let todos = Store(
  ///   initialState: TodoList(), reducer: todoReducer,
  ///   middleware: [.logging(to: logger, redacting: ["session.token"])])
  /// // Several stores: attach one middleware to each; the label tells their records apart.
  /// let settings = Store(
  ///   initialState: Settings(), dispatcher: todos.dispatcher, reducer: settingsReducer)
  /// let subscription = settings.use(.logging(to: logger, label: "settings"))
  /// ```
  ///
  /// Make one middleware per store, so that its records carry the store's label: one shared
  /// between stores still times each reduction correctly (its `before` hands the start to the
  /// `after` of the same action), even on dispatchers that reduce at the same moment.
  ///
  /// - Parameters:
  ///   - logger: The logger to write to.
  ///   - level: The level of the records; `.debug` by default.
  ///   - label: The store's name in the records; `"Store<State>"` (with the state's type name)
  ///     by default.
  ///   - redaction: The parts of the state never to show; none by default.
  /// - Returns: The middleware.
  public static func logging(
    to logger: Logger, level: Logger.Level = .debug, label: String? = nil,
    redacting redaction: Redaction = .none
  ) -> Middleware {
    let label = label ?? "Store<\(State.self)>"
    return Middleware(
      before: { _, _ -> ContinuousClock.Instant? in
        logger.logLevel <= level ? ContinuousClock.now : nil
      },
      after: { action, old, new, start in
        // With the level lowered during the reduction, the record has no duration.
        guard logger.logLevel <= level else { return }
        let duration = start.map { $0.duration(to: .now) }
        let record = ReductionRecord(
          label: label, action: action, duration: duration, old: old, new: new,
          redaction: redaction)
        logger.log(level: level, "\(record.message)", metadata: record.metadata, source: "Sluice")
      })
  }
}

/// What a logging middleware writes about one reduced action.
struct ReductionRecord {
  /// The most changes written out in one record.
  static let changeLimit = 100

  let message: String
  let metadata: Logger.Metadata

  init<State>(
    label: String, action: any Action, duration: Duration?, old: State, new: State,
    redaction: Redaction
  ) {
    let actionName = String(describing: type(of: action))
    var metadata: Logger.Metadata = [
      "sluice.store": .string(label),
      "sluice.action": .string(actionName),
    ]
    var message = "\(label) reduced \(actionName)"
    if let duration {
      let text = duration.millisecondsDescription
      metadata["sluice.duration"] = .string(text)
      message += " in \(text)"
    }
    // Read without redacting: the diff compares redacted parts, and never formats them.
    let encoder = StateValueEncoder()
    let diff = StateDiff(
      from: encoder.encode(reflecting: old), to: encoder.encode(reflecting: new),
      redaction: redaction, in: State.self, limit: Self.changeLimit)
    var lines = diff.lines.map { Logger.MetadataValue.string($0) }
    if diff.count > diff.lines.count {
      lines.append(.string("… and \(diff.count - diff.lines.count) more"))
    }
    metadata["sluice.changes"] = .array(lines)
    message += diff.count == 1 ? ", 1 change" : ", \(diff.count) changes"
    self.message = message
    self.metadata = metadata
  }
}

extension Duration {
  /// This duration in milliseconds with three decimals, such as `"0.042 ms"`.
  var millisecondsDescription: String {
    let (seconds, attoseconds) = components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    let fraction = String(magnitude % 1000)
    let padding = String(repeating: "0", count: 3 - fraction.count)
    return "\(sign)\(magnitude / 1000).\(padding)\(fraction) ms"
  }
}
