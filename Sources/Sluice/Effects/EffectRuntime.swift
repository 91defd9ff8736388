/// The effects in flight on one lane: it starts them as tasks under their policies, cancels
/// them by id or group, and tells ``Store/settle(file:line:)`` when none is left.
final class EffectRuntime: @unchecked Sendable {
  // @unchecked Sendable: every field is touched only under `lock`.
  private struct Running {
    let token: UInt64
    /// The interned ``EffectID``.
    let key: Int
    let group: EffectGroup?
    /// What started it, for testing tools' messages.
    let source: ErrorEvent.Source
    var task: Task<Void, Never>?
    var cancelled = false
  }

  private let lock = InternalLock()
  private var running: [UInt64: Running] = [:]
  private var nextToken: UInt64 = 1
  private var idleWaiters: [CheckedContinuation<Void, Never>] = []
  /// Called once when no effect in flight is left that was not cancelled.
  private var activeEndedCallbacks: [@Sendable () -> Void] = []
  private var started = 0
  /// The executor the effects' tasks prefer (`nil`: the global one); testing tools count the
  /// jobs that wait for a thread or run on theirs.
  private var executor: (any TaskExecutor)?
  /// Named ids, interned, so that policies compare integers on the dispatch path.
  private var keys: [EffectID: Int] = [:]
  private var nextKey = 0
  /// While an inspector is attached: the cause of what an effect started now dispatches.
  private var inspectionCause:
    (@Sendable (ErrorEvent.Source, AnyStoreCore?) -> InspectionContext.EffectCause?)?

  /// The runtime whose effect the current task runs, if any.
  @TaskLocal static var current: ObjectIdentifier?

  /// The number of effects started and not finished yet (cancelled ones count until they end).
  var inFlight: Int { lock.withLock { running.count } }

  /// The number of effects in flight that were not cancelled.
  var activeCount: Int { lock.withLock { running.values.count { !$0.cancelled } } }

  /// Runs the effects started from now on as tasks that prefer `executor`.
  func prefer(_ executor: any TaskExecutor) { lock.withLock { self.executor = executor } }

  /// The number of effects ever started.
  var startedCount: Int { lock.withLock { started } }

  /// What started each effect in flight that was not cancelled, oldest first.
  var activeSources: [ErrorEvent.Source] {
    lock.withLock {
      running.values.filter { !$0.cancelled }.sorted { $0.token < $1.token }.map(\.source)
    }
  }

  /// The token the next effect will get: effects started later have this one or a greater one.
  var nextStartToken: UInt64 { lock.withLock { nextToken } }

  /// The effects in flight started with `token` or after, oldest first.
  func tasks(startedFrom token: UInt64) -> [EffectTask] {
    lock.withLock {
      running.values.filter { $0.token >= token }.sorted { $0.token < $1.token }.compactMap {
        entry in entry.task.map { EffectTask(task: $0, token: entry.token, runtime: self) }
      }
    }
  }

  /// Sets (or, with `nil`, clears) what gives the effects started from now on the cause of the
  /// actions they dispatch (see ``LaneInspector``).
  func setInspectionCause(
    _ cause: (@Sendable (ErrorEvent.Source, AnyStoreCore?) -> InspectionContext.EffectCause?)?
  ) {
    let replaced = lock.withLock {
      defer { inspectionCause = cause }
      return inspectionCause
    }
    _ = replaced  // Released here, outside the lock.
  }

  /// The key of a named id (the same for equal ids), or a new key for an unnamed one.
  func key(for id: EffectID?) -> Int {
    lock.withLock {
      if let id, let key = keys[id] { return key }
      nextKey += 1
      if let id { keys[id] = nextKey }
      return nextKey
    }
  }

  /// Runs `registration` for `action` under its policy (on the lane). With `runs` false (an
  /// entry of a shared log that another node dispatched, whose effects run there), only a
  /// cancellation takes effect.
  func trigger(_ registration: EffectRegistration, action: any Action, runs: Bool = true) {
    let key = registration.key
    switch registration.kind {
    case .cancel:
      lock.withLock { cancelLocked { $0.key == key } }
      notifyIfNoActiveEffect()
    case .run(let policy):
      guard runs else { return }
      if policy.kind == .dropWhileRunning,
        lock.withLock({ running.values.contains { $0.key == key && !$0.cancelled } })
      {
        return
      }
      // An action the registration does not take (another case of an enum) leaves its runs
      // alone, whatever the policy.
      guard let operation = registration.operation(action) else { return }
      if policy.kind == .latest || policy.kind == .debounce {
        lock.withLock { cancelLocked { $0.key == key } }
      }
      let delay = policy.makeDelay?(registration.clock)
      let body: @Sendable () async throws -> Void
      if let delay {
        body = {
          try await delay()
          try Task.checkCancellation()
          try await operation()
        }
      } else {
        body = operation
      }
      start(
        key: key, group: registration.group, owner: registration.owner,
        errors: registration.errors,
        source: registration.source, action: action, body)
    }
  }

  /// Starts `body` as a task (from any thread); errors it throws go to `errors`, unless it was
  /// cancelled.
  @discardableResult
  func start(
    key: Int, group: EffectGroup?, owner: AnyStoreCore?, errors: ErrorSink,
    source: ErrorEvent.Source, action: (any Action)?,
    _ body: @escaping @Sendable () async throws -> Void
  ) -> EffectTask {
    lock.lock()
    let token = nextToken
    nextToken += 1
    started += 1
    running[token] = Running(token: token, key: key, group: group, source: source)
    let cause = inspectionCause?(source, owner)
    // Made under the lock, so the task cannot finish before it is recorded.
    let task = Task(executorPreference: executor) { [id = ObjectIdentifier(self)] in
      do {
        if let cause {
          try await InspectionContext.$effectCause.withValue(cause) {
            try await EffectRuntime.$current.withValue(id) { try await body() }
          }
        } else {
          try await EffectRuntime.$current.withValue(id) { try await body() }
        }
      } catch is CancellationError {
      } catch {
        if !Task.isCancelled {
          errors.report(ErrorEvent(error: error, action: action, source: source))
        }
      }
      self.finish(token)
    }
    running[token]?.task = task
    lock.unlock()
    return EffectTask(task: task, token: token, runtime: self)
  }

  private func finish(_ token: UInt64) {
    lock.lock()
    running.removeValue(forKey: token)
    var waiters: [CheckedContinuation<Void, Never>] = []
    if running.isEmpty {
      waiters = idleWaiters
      idleWaiters.removeAll()
    }
    let callbacks = takeActiveEndedLocked()
    lock.unlock()
    for waiter in waiters { waiter.resume() }
    for callback in callbacks { callback() }
  }

  /// Cancels one run.
  func cancel(token: UInt64) {
    lock.withLock { cancelLocked { $0.token == token } }
    notifyIfNoActiveEffect()
  }

  /// Cancels the runs of `id`.
  func cancel(id: EffectID) {
    lock.withLock {
      guard let key = keys[id] else { return }
      cancelLocked { $0.key == key }
    }
    notifyIfNoActiveEffect()
  }

  /// Cancels the runs of a group.
  func cancel(group: EffectGroup) {
    lock.withLock { cancelLocked { $0.group == group } }
    notifyIfNoActiveEffect()
  }

  /// Cancels every run.
  func cancelAll() {
    lock.withLock { cancelLocked { _ in true } }
    notifyIfNoActiveEffect()
  }

  private func cancelLocked(where matches: (Running) -> Bool) {
    for (token, entry) in running where !entry.cancelled && matches(entry) {
      entry.task?.cancel()
      running[token]?.cancelled = true
    }
  }

  /// Calls the callbacks of ``whenNoActiveEffect(_:)`` when no run is left that was not
  /// cancelled (after a cancellation: a policy's, by the time the run replacing it started).
  private func notifyIfNoActiveEffect() {
    let callbacks = lock.withLock { takeActiveEndedLocked() }
    for callback in callbacks { callback() }
  }

  /// The callbacks of ``whenNoActiveEffect(_:)`` when no run is left that was not cancelled
  /// (under the lock), taken out of the runtime.
  private func takeActiveEndedLocked() -> [@Sendable () -> Void] {
    guard !activeEndedCallbacks.isEmpty, !running.values.contains(where: { !$0.cancelled }) else {
      return []
    }
    defer { activeEndedCallbacks.removeAll() }
    return activeEndedCallbacks
  }

  /// Calls `body` once, as soon as no effect in flight is left that was not cancelled (at once,
  /// on this thread, when none is); from the thread that ends or cancels the last one.
  func whenNoActiveEffect(_ body: @escaping @Sendable () -> Void) {
    let now = lock.withLock {
      guard running.values.contains(where: { !$0.cancelled }) else { return true }
      activeEndedCallbacks.append(body)
      return false
    }
    if now { body() }
  }

  /// Resumes once no effect is in flight.
  func waitUntilIdle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.lock()
      if running.isEmpty {
        lock.unlock()
        continuation.resume()
        return
      }
      idleWaiters.append(continuation)
      lock.unlock()
    }
  }
}
