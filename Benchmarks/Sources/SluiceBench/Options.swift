import ArgumentParser

/// The command line of `sluice-bench`, parsed by swift-argument-parser: `Options.parseOrExit()`
/// in `main.swift` returns it, or prints the help (`-h`, `--help`) or an error and exits.
struct Options: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sluice-bench",
    abstract: "Micro-benchmarks of Sluice's dispatch, observation and persistence paths.",
    discussion: "Benchmarks/README.md says what each case measures, and its budget.")

  /// Print one JSON object to stdout instead of the table.
  @Flag(help: #"Print one JSON object {"cases":[...]} to stdout instead of a table."#)
  var json = false

  /// Run only the case of exactly this name, or else the cases whose name contains it
  /// (`floor.lock` is still measured as the reference for the ratio, unless `once` is set).
  @Option(
    help: ArgumentHelp(
      "Run only the case named S, or else the cases whose name contains S (floor.lock is kept "
        + "as the reference for ratios).", valueName: "S"))
  var filter: String?

  /// Iterations per timed repetition; calibrated per case when `nil`.
  @Option(
    help: ArgumentHelp(
      "Iterations per timed repetition (default: calibrated to ~40 ms).", valueName: "N"))
  var iterations: Int?

  /// Timed repetitions per case; the best one is reported.
  @Option(
    help: ArgumentHelp("Timed repetitions per case, the best one reported.", valueName: "N"))
  var repetitions = 20

  /// Run each selected case's loop exactly once (no warm-up, no repetitions, no allocation pass):
  /// for profilers such as callgrind.
  @Flag(
    help: ArgumentHelp(
      "Run each selected loop once, N iterations (default \(Harness.defaultOnceIterations)), no "
        + "warm-up; for valgrind --tool=callgrind."))
  var once = false

  /// Also run the diagnostic `extra.*` cases.
  @Flag(help: "Also run the diagnostic extra.* cases.")
  var extra = false

  /// Count each case's instructions per operation with callgrind too (`instructions_per_op`).
  @Flag(
    help: ArgumentHelp(
      "Also count the instructions per operation of the cases whose instructions carry a "
        + "budget, under valgrind's callgrind (instructions_per_op; null for the other cases, "
        + "and where valgrind is missing)."))
  var instructions = false

  /// Print the case names instead of running them.
  @Flag(help: "Print the case names and exit.")
  var list = false

  func validate() throws {
    if let iterations, iterations <= 0 {
      throw ValidationError("--iterations needs a positive integer")
    }
    if repetitions <= 0 { throw ValidationError("--repetitions needs a positive integer") }
  }
}
