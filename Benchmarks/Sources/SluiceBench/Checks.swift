#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// Self-checks of the cases that must fail the run, not just warn: a case whose observers or
// bodies stopped running would otherwise report a fast, meaningless figure.

/// How many times a reactor's handler ran (the discovery call on attach included); written
/// only by the benchmark thread, like ``consumeCalls``.
nonisolated(unsafe) var reactionCalls = 0

/// Stops the run with exit status 1 when `condition` is false.
func require(_ condition: Bool, _ name: String, _ message: @autoclosure () -> String) {
  guard !condition else { return }
  printError("error: \(name): \(message())")
  exit(1)
}

/// Runs `round` and requires that ``consume(_:)`` ran exactly `bodies` times and a reactor's
/// handler exactly `reactions` times meanwhile.
func requireCalls(
  _ name: String, bodies: Int, reactions: Int, _ round: () -> Void
) {
  let bodiesBefore = consumeCalls
  let reactionsBefore = reactionCalls
  round()
  let ranBodies = consumeCalls - bodiesBefore
  let ranReactions = reactionCalls - reactionsBefore
  require(
    ranBodies == bodies && ranReactions == reactions, name,
    "expected \(reactions) reactor calls and \(bodies) query bodies, saw \(ranReactions) and "
      + "\(ranBodies)")
}
