/// Command-line options, parsed by hand.
struct Options {
  /// Print one JSON object to stdout instead of the table.
  var json = false
  /// Run only the case of exactly this name, or else the cases whose name contains it
  /// (`floor.lock` is still measured as the reference for the ratio, unless `once` is set).
  var filter: String?
  /// Iterations per timed repetition; calibrated per case when `nil`.
  var iterations: Int?
  /// Run each selected case's loop exactly once (no warm-up, no repetitions, no allocation pass):
  /// for profilers such as callgrind.
  var once = false
  /// Also run the diagnostic `extra.*` cases.
  var extra = false
  /// Timed repetitions per case; the best one is reported.
  var repetitions = 20

  static let usage = """
    usage: sluice-bench [--json] [--filter SUBSTRING] [--iterations N] [--repetitions N]
                        [--once] [--extra] [--list]

      --json            print one JSON object {"cases":[...]} to stdout instead of a table
      --filter S        run only the case named S, or else cases whose name contains S
                        (floor.lock is kept as the reference for ratios)
      --iterations N    iterations per timed repetition (default: calibrated to ~40 ms)
      --repetitions N   timed repetitions per case, best one reported (default: 20)
      --once            run each selected loop once, N iterations (default 100000), no warm-up;
                        for valgrind --tool=callgrind
      --extra           also run the diagnostic extra.* cases
      --list            print the case names and exit
    """

  enum ParseResult {
    case run(Options)
    case list(Options)
    case help
    case error(String)
  }

  static func parse(_ arguments: [String]) -> ParseResult {
    var options = Options()
    var list = false
    var index = 0
    func value(for flag: String) -> String? {
      index += 1
      return index < arguments.count ? arguments[index] : nil
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--json": options.json = true
      case "--once": options.once = true
      case "--extra": options.extra = true
      case "--list": list = true
      case "-h", "--help": return .help
      case "--filter":
        guard let text = value(for: argument) else { return .error("--filter needs a value") }
        options.filter = text
      case "--iterations":
        guard let text = value(for: argument), let number = Int(text), number > 0 else {
          return .error("--iterations needs a positive integer")
        }
        options.iterations = number
      case "--repetitions":
        guard let text = value(for: argument), let number = Int(text), number > 0 else {
          return .error("--repetitions needs a positive integer")
        }
        options.repetitions = number
      default:
        return .error("unknown argument '\(argument)'")
      }
      index += 1
    }
    return list ? .list(options) : .run(options)
  }
}
