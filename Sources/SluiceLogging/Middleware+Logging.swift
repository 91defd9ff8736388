import Logging
import Sluice

extension Middleware {
  /// Middleware that logs each action the store reduces: its type, how long the reduction took,
  /// and, for an `Encodable` state, every part of the state it changed, old → new.
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
  /// Changes are found by encoding the states before and after with
  /// `StateValueEncoder` and comparing the trees; they are named by dotted paths, as in
  /// Sluice's dotted-path queries, in path order, at most 100 of them (a last line counts the
  /// rest). A part whose value has a different kind after (`null` → an object, say) is one
  /// change, its values written whole. For a state that is not `Encodable` (checked at run
  /// time), or whose encoding throws, the record has no `sluice.changes`; encoding errors are
  /// named in `sluice.unencodable` (their type only, as their text may quote the value).
  ///
  /// `redacting` hides sensitive parts: they are written `<redacted>` and their values are
  /// never formatted (see ``Redaction``).
  ///
  /// When `logger` would drop a record at `level`, the middleware does nothing else: it reads
  /// the clock, encodes and compares nothing. Otherwise it encodes both states for every
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
  /// Make one middleware per store. One shared between stores of one dispatcher still times
  /// each reduction correctly, but its records carry one label; shared between dispatchers
  /// that reduce at the same moment, on different threads, it may mix up their durations.
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
    let timer = ReductionTimer()
    return Middleware(
      before: { _, _ in
        guard logger.logLevel <= level else { return }
        timer.start()
      },
      after: { action, old, new in
        let isEnabled = logger.logLevel <= level
        // A start noted before the level was raised is taken anyway, to stay in step.
        guard isEnabled || timer.hasPendingStart else { return }
        let duration = timer.stop()
        guard isEnabled else { return }
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
    if let old = old as? any Encodable, let new = new as? any Encodable {
      do {
        let encoder = StateValueEncoder()
        let diff = StateDiff(
          from: try encoder.encode(old), to: try encoder.encode(new), redaction: redaction,
          limit: Self.changeLimit)
        var lines = diff.lines.map { Logger.MetadataValue.string($0) }
        if diff.count > diff.lines.count {
          lines.append(.string("… and \(diff.count - diff.lines.count) more"))
        }
        metadata["sluice.changes"] = .array(lines)
        message += diff.count == 1 ? ", 1 change" : ", \(diff.count) changes"
      } catch {
        metadata["sluice.unencodable"] = .string("\(type(of: error))")
      }
    }
    self.message = message
    self.metadata = metadata
  }
}
