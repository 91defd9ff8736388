import PropertyBased

/// The random source of one step of a property run: it hands out the step's recorded choices
/// first, then draws from the run's seeded generator (a fixed one when the shrinker replays a
/// candidate).
///
/// The simplest choice is 1, not 0: the standard library's bounded random numbers reject 0 (and
/// draw again) for most bounds, and take 1 as their lowest value. So do ``index(below:)`` and
/// `Bool.random(using:)`.
///
/// Every value it hands out is recorded, so that a step is replayed, and shrunk, by its choices.
struct ChoiceRandom: SeededRandomNumberGenerator {
  typealias Seed = [UInt64]

  /// The choices to hand out first; the draws after them are appended.
  private(set) var choices: [UInt64]
  private var position = 0
  /// Where fresh choices come from.
  var source: Xoshiro

  /// The source of the choices a replay draws past the recorded ones: fixed, so that replays
  /// are deterministic.
  static var replaySource: Xoshiro { Xoshiro(seed: (1, 2, 3, 4)) }

  init(choices: [UInt64], source: Xoshiro) {
    self.choices = choices
    self.source = source
  }

  init?(seed: [UInt64]) { self.init(choices: seed, source: Self.replaySource) }

  init() { self.init(choices: [], source: Xoshiro()) }

  var currentSeed: [UInt64] { Array(choices[position...]) }

  /// The choices handed out so far.
  var used: [UInt64] { Array(choices[..<position]) }

  mutating func next() -> UInt64 {
    if position == choices.count {
      choices.append(source.next())
    }
    defer { position += 1 }
    return choices[position]
  }

  /// A number in `0..<count`, 0 for the simplest choices (`count` > 0).
  mutating func index(below count: Int) -> Int {
    Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(count)).high)
  }
}
