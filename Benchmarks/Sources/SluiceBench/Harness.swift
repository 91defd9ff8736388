/// One benchmark: a fixture built outside the timing, and a loop that performs `n` operations.
struct BenchCase: Sendable {
  let name: String
  /// Builds the fixture and returns its loop. Everything the loop needs (stores, subscriptions)
  /// is captured by the returned closure, so it stays alive while the case runs.
  let make: @Sendable () -> (_ iterations: Int) -> Void
  /// Measures the case itself instead of the timed loop (a rate over a fixed duration).
  var custom: (@Sendable (_ options: Options) -> Measurement)? = nil
  /// Why the case cannot run on this machine (a program it needs is missing), or `nil` when it
  /// can; a case that cannot run is skipped with a note.
  var unavailable: (@Sendable () -> String?)? = nil
}

/// What one case measured.
struct Measurement {
  let name: String
  /// Best (minimum) nanoseconds per operation over the timed repetitions.
  let nsPerOp: Double
  /// `nsPerOp` divided by `floor.lock`'s, when that was measured.
  var ratioToLockFloor: Double?
  /// Allocations per operation over a separate, untimed pass; `nil` when unknown.
  let allocsPerOp: Double?
  let iterations: Int
  let repetitions: Int
  /// Further figures of the case, printed after the fixed columns (`"writes_per_second"`).
  var metrics: [(name: String, value: Double)] = []
  /// Instructions per operation under callgrind (`--instructions`); `nil` when not counted.
  var instructionsPerOp: Double?
}

enum Harness {
  /// The time one timed repetition aims for when the iteration count is calibrated.
  static let targetRepetitionNanoseconds = 40_000_000.0
  /// Iterations of the loop in `--once` mode unless `--iterations` says otherwise.
  static let defaultOnceIterations = 100_000

  static func measure(_ benchCase: BenchCase, options: Options) -> Measurement {
    if let custom = benchCase.custom { return custom(options) }
    let loop = benchCase.make()

    if options.once {
      let iterations = options.iterations ?? defaultOnceIterations
      let elapsed = time { loop(iterations) }
      return Measurement(
        name: benchCase.name, nsPerOp: elapsed / Double(iterations), ratioToLockFloor: nil,
        allocsPerOp: nil, iterations: iterations, repetitions: 1)
    }

    // Warm up (caches, lazy initialization, buffers growing to their working size) and
    // calibrate: double the count until one run takes at least 5 ms.
    var iterations = 16
    var elapsed = time { loop(iterations) }
    while elapsed < 5_000_000 {
      iterations *= 2
      elapsed = time { loop(iterations) }
    }
    if let fixed = options.iterations {
      iterations = fixed
    } else {
      let perOp = elapsed / Double(iterations)
      iterations = max(1, Int(targetRepetitionNanoseconds / perOp))
    }

    var best = Double.infinity
    for _ in 0..<options.repetitions {
      let nanoseconds = time { loop(iterations) }
      best = min(best, nanoseconds / Double(iterations))
    }

    return Measurement(
      name: benchCase.name, nsPerOp: best, ratioToLockFloor: nil,
      allocsPerOp: allocationsPerOperation(loop, iterations: min(iterations, 20_000)),
      iterations: iterations, repetitions: options.repetitions)
  }

  /// Allocations per operation over an untimed pass of the (already warm) loop.
  private static func allocationsPerOperation(
    _ loop: (Int) -> Void, iterations: Int
  ) -> Double? {
    guard AllocationCounter.isReliable else { return nil }
    let before = AllocationCounter.count
    loop(iterations)
    let after = AllocationCounter.count
    return Double(after &- before) / Double(iterations)
  }

  /// Nanoseconds `body` took, on the monotonic clock.
  @inline(__always)
  static func time(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    body()
    let duration = start.duration(to: clock.now)
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}
