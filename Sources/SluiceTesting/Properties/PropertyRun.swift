import PropertyBased
import Sluice

/// What broke a property.
enum PropertyViolation: Equatable, Sendable {
  /// The named invariant did not hold after a step.
  case invariant(String)
  /// The state after an action differed from the reference model's.
  case model
  /// The effects neither ended nor waited on the property's clock.
  case unsettled
  /// The named custom step left the lane paused: the next send would wait for ever.
  case leftPaused(String)
}

/// An action the store processed during a step.
struct RecordedAction<State: Sendable>: Sendable {
  let action: any Action
  let before: State
  let after: State
  /// The state the reference model expects after the action (`after` without a model).
  let expected: State
  /// Whether the step sent it (`false`: an effect, an observer or a custom step dispatched it).
  let sent: Bool
}

/// What one run of a property did.
struct PropertyTrace<State: Sendable>: Sendable {
  /// A step taken and the actions the store processed during it.
  struct Entry: Sendable {
    let step: PropertyStep<State>
    let actions: [RecordedAction<State>]
  }

  /// The random choices each step made: the run, replayable.
  var choices: [[UInt64]] = []
  /// Which of the generator's choices made each step.
  var kinds: [Int] = []
  var entries: [Entry] = []
  var violation: PropertyViolation?
  /// Whether effects were still running when the run ended.
  var effectsLeft = false
  /// The state after the last step.
  var finalState: State?

  /// Whether this run is simpler than `other`: fewer steps, or smaller choices.
  func isSimpler(than other: PropertyTrace) -> Bool {
    if choices.count != other.choices.count { return choices.count < other.choices.count }
    return choices.joined().lexicographicallyPrecedes(other.choices.joined())
  }
}

/// Runs steps of a property through a new store, checking the model and the invariants after
/// each step, until a check fails or the steps are taken.
struct PropertyRunner<State: Equatable & Sendable>: Sendable {
  let property: StoreProperty<State>

  /// Runs `length` steps: those `choices` describe, then fresh ones drawn from `source`.
  func run(choices: [[UInt64]], source: Xoshiro, length: Int) async -> PropertyTrace<State> {
    let clock = ManualClock()
    let store = property.makeStore(clock)
    let jobs = EffectJobs()
    store.preferEffectExecutor(jobs)
    let log = Guarded(ActionLog<State>())
    let recording = store.record { step in
      log.withLock { log in
        // On a shared dispatcher, the actions of the other stores are theirs.
        if step.handledElsewhere, !log.sending { return }
        log.records.append((step.action, step.before, step.after, log.sending))
      }
    }
    var trace = PropertyTrace<State>()
    var source = source
    var model = property.model.map { _ in property.initialState }
    if let broken = property.invariants.first(where: { !$0.holds(property.initialState) }) {
      trace.violation = .invariant(broken.name)
      trace.finalState = property.initialState
      recording.cancel()
      return trace
    }
    steps: for index in 0..<length {
      var random = ChoiceRandom(
        choices: index < choices.count ? choices[index] : [], source: source)
      let picked = property.actions.step(in: store.state, random: &random)
      source = random.source
      guard let (step, kind) = picked else { break }
      trace.choices.append(random.used)
      trace.kinds.append(kind)
      let outcome = await take(step, store: store, clock: clock, jobs: jobs, log: log)
      var actions: [RecordedAction<State>] = []
      for (action, before, after, sent) in log.withLock({ $0.take() }) {
        var expected = after
        if var state = model, let step = property.model {
          step(&state, action)
          model = state
          expected = state
        }
        actions.append(
          RecordedAction(
            action: action, before: before, after: after, expected: expected, sent: sent))
        if expected != after, trace.violation == nil { trace.violation = .model }
      }
      trace.entries.append(PropertyTrace.Entry(step: step, actions: actions))
      if trace.violation != nil { break steps }
      if let outcome {
        trace.violation = outcome
        break steps
      }
      let state = store.state
      for invariant in property.invariants where !invariant.holds(state) {
        trace.violation = .invariant(invariant.name)
        break steps
      }
    }
    trace.finalState = store.state
    trace.effectsLeft = store.activeEffectCount > 0
    recording.cancel()
    store.cancelEffects()
    return trace
  }

  /// Takes `step`, then waits until the effects ended or wait on the clock; returns what went
  /// wrong, if anything.
  private func take(
    _ step: PropertyStep<State>, store: Store<State>, clock: ManualClock, jobs: EffectJobs,
    log: Guarded<ActionLog<State>>
  ) async -> PropertyViolation? {
    switch step {
    case .send(let action):
      await store.sendMarked(action) { inside in log.withLock { $0.sending = inside } }
    case .advance(let duration):
      let target = clock.now.advanced(by: duration)
      // One sleeper at a time, earliest first: the order of what the effects dispatch is the
      // same in every run.
      while clock.wakeNext(upTo: target) {
        guard await settle(store, clock: clock, jobs: jobs) else { return .unsettled }
      }
      return nil
    case .custom(let name, _, let perform):
      await perform(store)
      if store.dispatcher.isPaused { return .leftPaused(name) }
    }
    return await settle(store, clock: clock, jobs: jobs) ? nil : .unsettled
  }

  /// Waits until every effect running waits on `clock` (or none runs) and the lane processed
  /// what they dispatched; `false` after ``StoreProperty/settleTimeout``.
  ///
  /// The timeout counts only while nothing moves and every effect is suspended: each time an
  /// effect ends, starts or goes to sleep on the clock, and as long as a job of an effect waits
  /// for a thread or runs (``EffectJobs``) or a sleeper the clock woke has not run yet, the wait
  /// starts over. So effects that are slow to get a thread on a busy machine are never taken
  /// for effects that wait on another clock or on an event.
  private func settle(
    _ store: Store<State>, clock: ManualClock, jobs: EffectJobs
  ) async -> Bool {
    var budget = WaitBudget(StoreProperty<State>.settleTimeout)
    var seen = (active: -1, sleeping: -1)
    while true {
      await store.drainLane()
      let active = store.activeEffectCount
      let sleeping = clock.sleeperCount
      if active == 0 || sleeping >= active {
        await store.drainLane()
        if store.activeEffectCount == active { return true }
      }
      if seen != (active, sleeping) || clock.wakingCount > 0 || jobs.count > 0 {
        seen = (active, sleeping)
        budget = WaitBudget(StoreProperty<State>.settleTimeout)
      }
      if budget.isSpent() { return false }
      await Task.yield()
    }
  }
}

/// The actions a property run's store processed, not yet assigned to a step.
struct ActionLog<State: Sendable> {
  var records: [(any Action, State, State, Bool)] = []
  var sending = false

  mutating func take() -> [(any Action, State, State, Bool)] {
    defer { records.removeAll() }
    return records
  }
}
