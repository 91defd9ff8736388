import Dispatch
import SluiceTestSupport
import SluiceTesting
import Testing

/// Runs jobs one at a time, in the order they arrive, on its own serial queue: tasks that prefer
/// it resume in the order their continuations were resumed.
private final class SerialJobs: TaskExecutor, @unchecked Sendable {
  // @unchecked Sendable: `queue` is immutable and thread-safe.
  private let queue = DispatchQueue(label: "ManualClockTests.serial")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}

/// Keeps the jobs of the tasks that prefer it until ``runHeld()``: tasks that are ready to run
/// and get no thread, as on a busy machine.
private final class HeldJobs: TaskExecutor, @unchecked Sendable {
  // @unchecked Sendable: `jobs` is touched only on `queue`.
  private let queue = DispatchQueue(label: "ManualClockTests.held")
  private var jobs: [UnownedJob] = []

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { self.jobs.append(job) }
  }

  /// Runs the jobs held so far.
  func runHeld() async {
    let executor = asUnownedTaskExecutor()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      queue.async {
        while !self.jobs.isEmpty { self.jobs.removeFirst().runSynchronously(on: executor) }
        done.resume()
      }
    }
  }
}

private func at(_ offset: Duration) -> ManualClock.Instant { ManualClock.Instant(offset: offset) }

@Suite struct ManualClockTests {
  @Test func nowAdvances() async {
    let clock = ManualClock()
    #expect(clock.now == at(.zero))
    await clock.advance(by: .milliseconds(250))
    #expect(clock.now == at(.milliseconds(250)))
    await clock.advance(by: .seconds(1))
    #expect(clock.now.offset == .milliseconds(1_250))
    await clock.advance()
    #expect(clock.now.offset == .milliseconds(1_250))
    #expect(clock.minimumResolution == .zero)
    #expect(at(.seconds(1)).duration(to: at(.seconds(3))) == .seconds(2))
    #expect(at(.seconds(1)) < at(.seconds(2)))
  }

  @Test func sleepReturnsOnlyAfterAdvancingPastTheDeadline() async throws {
    let clock = ManualClock()
    let woke = TestLog<ManualClock.Instant>()
    let sleeper = Task {
      try await clock.sleep(until: at(.seconds(1)))
      woke.append(clock.now)
    }
    await waitUntil("the task sleeps") { clock.sleeperCount == 1 }
    await clock.advance(by: .milliseconds(999))
    #expect(clock.sleeperCount == 1)
    #expect(woke.values.isEmpty)
    await clock.advance(by: .milliseconds(1))
    try await sleeper.value
    #expect(woke.values == [at(.seconds(1))])
    #expect(clock.sleeperCount == 0)
  }

  @Test func sleepForIsRelativeToNow() async throws {
    let clock = ManualClock()
    await clock.advance(by: .seconds(5))
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    await waitUntil("the task sleeps") { clock.sleeperCount == 1 }
    await clock.advance(by: .seconds(1))
    try await sleeper.value
  }

  @Test func advancingBeyondTheDeadlineWakes() async throws {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(until: at(.seconds(1))) }
    await waitUntil("the task sleeps") { clock.sleeperCount == 1 }
    await clock.advance(by: .seconds(10))
    try await sleeper.value
    #expect(clock.now == at(.seconds(10)))
  }

  @Test func sleepersWakeEarliestFirst() async throws {
    let clock = ManualClock()
    let jobs = SerialJobs()
    let order = TestLog<Duration>()
    var sleepers: [Task<Void, any Error>] = []
    // Registered out of order; each is registered before the next starts.
    for (index, deadline) in [Duration.seconds(3), .seconds(1), .seconds(2)].enumerated() {
      sleepers.append(
        Task(executorPreference: jobs) {
          try await clock.sleep(until: at(deadline))
          order.append(deadline)
        })
      await waitUntil("sleeper \(index) sleeps") { clock.sleeperCount == index + 1 }
    }
    await clock.advance(by: .seconds(3))
    for sleeper in sleepers { try await sleeper.value }
    #expect(order.values == [.seconds(1), .seconds(2), .seconds(3)])
  }

  @Test func advanceWakesOnlyTheDueSleepers() async throws {
    let clock = ManualClock()
    let order = TestLog<Duration>()
    let deadlines: [Duration] = [.seconds(1), .seconds(2), .seconds(3)]
    var sleepers: [Task<Void, any Error>] = []
    for deadline in deadlines {
      sleepers.append(
        Task {
          try await clock.sleep(until: at(deadline))
          order.append(deadline)
        })
    }
    await waitUntil("all sleep") { clock.sleeperCount == 3 }
    await clock.advance(by: .milliseconds(1_500))
    try await sleepers[0].value
    #expect(clock.sleeperCount == 2)
    await clock.advance(by: .seconds(1))
    try await sleepers[1].value
    #expect(clock.sleeperCount == 1)
    #expect(order.values == [.seconds(1), .seconds(2)])
    await clock.advance(by: .seconds(1))
    try await sleepers[2].value
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellationThrowsPromptlyAndRemovesTheSleeper() async {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(until: at(.seconds(60))) }
    await waitUntil("the task sleeps") { clock.sleeperCount == 1 }
    let duration = await elapsed {
      sleeper.cancel()
      #expect(clock.sleeperCount == 0)
      await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
    // The clock never moves by itself: a cancellation that did not end the sleep would hang.
    // The bound only turns that into a failure: a hang guard.
    #expect(duration < hangGuard, "a hang guard")
    #expect(clock.now == at(.zero))
    // A later advance has nothing to wake.
    await clock.advance(by: .seconds(60))
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellationOfOneSleeperLeavesTheOthers() async throws {
    let clock = ManualClock()
    let first = Task { try await clock.sleep(until: at(.seconds(1))) }
    let second = Task { try await clock.sleep(until: at(.seconds(1))) }
    await waitUntil("both sleep") { clock.sleeperCount == 2 }
    first.cancel()
    await #expect(throws: CancellationError.self) { try await first.value }
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    try await second.value
  }

  @Test func cancellationAtAnyMoment() async {
    // Cancelled before, while or after registering: always a CancellationError, never a
    // sleeper left behind.
    let clock = ManualClock()
    for _ in 0..<200 {
      let sleeper = Task { try await clock.sleep(until: at(.seconds(1))) }
      sleeper.cancel()
      await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
    #expect(clock.sleeperCount == 0)
  }

  @Test func alreadyCancelledTaskThrowsAtOnce() async {
    let clock = ManualClock()
    let gate = Gate()
    let sleeper = Task {
      await gate.wait()
      try await clock.sleep(until: at(.seconds(1)))
    }
    sleeper.cancel()
    gate.open()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test func aWokenSleeperCountsAsWakingUntilItsTaskRuns() async throws {
    // A property run's settle must tell an effect waiting for a thread from one waiting on
    // another clock.
    let clock = ManualClock()
    let jobs = HeldJobs()
    let first = Task(executorPreference: jobs) { try await clock.sleep(until: at(.seconds(1))) }
    let second = Task(executorPreference: jobs) { try await clock.sleep(until: at(.seconds(2))) }
    await jobs.runHeld()
    #expect(clock.sleeperCount == 2)
    #expect(clock.wakingCount == 0)
    #expect(clock.wakeNext(upTo: at(.seconds(2))))
    #expect(clock.sleeperCount == 1)
    #expect(clock.wakingCount == 1)
    await clock.advance(by: .seconds(1))
    #expect(clock.sleeperCount == 0)
    #expect(clock.wakingCount == 2)
    await jobs.runHeld()
    try await first.value
    try await second.value
    #expect(clock.wakingCount == 0)
  }

  @Test func run() async throws {
    let clock = ManualClock()
    let first = Task { try await clock.sleep(until: at(.seconds(2))) }
    let second = Task { try await clock.sleep(until: at(.seconds(5))) }
    await waitUntil("both sleep") { clock.sleeperCount == 2 }
    await clock.run()
    try await first.value
    try await second.value
    #expect(clock.now == at(.seconds(5)))
    #expect(clock.sleeperCount == 0)
  }

  @Test func runWithoutSleepersDoesNothing() async {
    let clock = ManualClock()
    await clock.advance(by: .seconds(1))
    await clock.run()
    #expect(clock.now == at(.seconds(1)))
  }

  @Test func sleepingUntilAPastDeadlineReturnsAtOnce() async throws {
    let clock = ManualClock()
    await clock.advance(by: .seconds(2))
    try await clock.sleep(until: at(.seconds(1)))
    try await clock.sleep(until: clock.now)
    try await clock.sleep(for: .zero)
    #expect(clock.sleeperCount == 0)
  }

  @Test func debounceDeadlineIsFixedAtDispatch() async throws {
    // `EffectPolicy.debounce` computes its deadline when the action is reduced, so advancing
    // right after the dispatch — before the effect's task even started — is deterministic.
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Query(text: "q")) { $0.text = "q" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(Results(text: "q")) { $0.results = ["q"] }
    await store.finish()
  }
}
