import Sluice

/// Shrinks a failing run: removes steps, merges steps of the same kind, then makes the random
/// choices of the steps left smaller, as long as the run still fails the same way (see ``ChoiceRandom`` for why the
/// simplest choice is 1).
///
/// Steps are replayed from their choices, so a shorter or simpler sequence is always a valid
/// one: a step that depended on the state re-chooses among what the new state allows.
struct PropertyShrinker<State: Equatable & Sendable>: Sendable {
  let runner: PropertyRunner<State>
  /// The most runs a shrink takes.
  static var maxRuns: Int { 2_000 }

  /// The simplest failing run found, and the number of runs it took.
  func shrink(_ failing: PropertyTrace<State>) async -> (PropertyTrace<State>, Int) {
    var best = failing
    var runs = 0

    /// Runs `candidate`; keeps it when it fails the same way and is simpler.
    func attempt(_ candidate: [[UInt64]]) async -> Bool {
      guard runs < Self.maxRuns else { return false }
      runs += 1
      let trace = await runner.run(
        choices: candidate, source: ChoiceRandom.replaySource, length: candidate.count)
      guard trace.violation == best.violation, trace.isSimpler(than: best) else { return false }
      best = trace
      return true
    }

    func replacing(_ step: Int, _ choice: Int, with value: UInt64) -> [[UInt64]] {
      var candidate = best.choices
      candidate[step][choice] = value
      return candidate
    }

    var improved = true
    while improved, runs < Self.maxRuns {
      improved = false
      // Remove runs of steps, halving their length.
      var size = max(best.choices.count / 2, 1)
      while size >= 1, runs < Self.maxRuns {
        var start = 0
        while start + size <= best.choices.count, runs < Self.maxRuns {
          var candidate = best.choices
          candidate.removeSubrange(start..<(start + size))
          if await attempt(candidate) {
            improved = true
          } else {
            start += 1
          }
        }
        size /= 2
      }
      // Merge two steps of the same kind into the first, with the larger, then the sum, of each
      // of their choices (a value grows with its choice): two short moves of the clock become
      // one long one, which removing either alone cannot find.
      var first = 0
      while first < best.choices.count, runs < Self.maxRuns {
        var second = first + 1
        while second < best.choices.count, runs < Self.maxRuns {
          guard best.kinds[first] == best.kinds[second],
            best.choices[first].count == best.choices[second].count
          else {
            second += 1
            continue
          }
          let pairs = zip(best.choices[first], best.choices[second])
          let larger = pairs.map { max($0, $1) }
          let sums = pairs.map { $0.addingReportingOverflow($1).overflow ? .max : $0 &+ $1 }
          var merged = false
          for values in [larger, sums] where !merged {
            var candidate = best.choices
            candidate[first] = Array(candidate[first].prefix(1) + values.dropFirst())
            candidate.remove(at: second)
            merged = await attempt(candidate)
          }
          if merged {
            improved = true
          } else {
            second += 1
          }
        }
        first += 1
      }
      // Make each choice smaller: the simplest (1) first, then halving.
      var step = 0
      while step < best.choices.count, runs < Self.maxRuns {
        var choice = 0
        while step < best.choices.count, choice < best.choices[step].count {
          var value = best.choices[step][choice]
          if value > 1, await attempt(replacing(step, choice, with: 1)) {
            improved = true
            value = 1
          }
          while value > 3, step < best.choices.count, choice < best.choices[step].count,
            await attempt(replacing(step, choice, with: value / 2))
          {
            improved = true
            value /= 2
          }
          choice += 1
        }
        step += 1
      }
    }
    return (best, runs)
  }
}
