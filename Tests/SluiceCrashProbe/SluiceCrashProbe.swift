import ArgumentParser
import Foundation
import Sluice

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The child process of the tests that kill a process or hold a database from another one: a
/// test tool, not a product of the package. Each mode's type says what it does:
///
///     SluiceCrashProbe <database> <flush log> [--flush-every N] [--window-ms M]
///                      [--record-before-flush | --record-without-flush | --write-through]
///     SluiceCrashProbe --hold-write-lock SECONDS <database>
///     SluiceCrashProbe --shared-lane (<database> | --postgres URL) <node> <nodes> <count>
///                      [--pause-ms M] [--lane NAME]
///     SluiceCrashProbe --outbox <log> <outbox> <node> <count>
///
/// (``PersistenceProbe``, `holdDatabaseWriteLock(on:for:)`, ``SharedLaneProbe``, ``OutboxProbe``.)
/// Bad arguments exit with status 64 and a usage message; a failure of the probe itself exits
/// with status 2 and a line on standard error.
@main
struct SluiceCrashProbe: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "SluiceCrashProbe",
    abstract: "The child process of Sluice's crash, lock and shared-lane tests.")

  @Flag(help: "Run one node of a shared lane: <database> <node> <nodes> <count>.")
  var sharedLane = false

  @Option(help: ArgumentHelp("With --shared-lane: the log is in this database.", valueName: "url"))
  var postgres: String?

  @Option(
    help: ArgumentHelp("With --shared-lane: pause 0 to M ms after each burst.", valueName: "M"))
  var pauseMs = 0

  @Option(help: ArgumentHelp("With --shared-lane: the lane's name.", valueName: "name"))
  var lane = "default"

  @Flag(help: "Run one node with its outbox in a file: <log> <outbox> <node> <count>.")
  var outbox = false

  @Option(help: ArgumentHelp("Hold <database>'s write lock this long, then exit.", valueName: "s"))
  var holdWriteLock: Double?

  @Option(help: "Flush after at most N dispatches.")
  var flushEvery = 64

  @Option(
    help: ArgumentHelp("Both coalescing delays, in ms (5 and 50 by default).", valueName: "M"))
  var windowMs: Int?

  @Flag var mode = RecordMode.afterFlush

  @Argument(help: "The files, and for a node: its number, the number of nodes and the count.")
  var positional: [String] = []

  func validate() throws {
    let modes = [sharedLane, outbox, holdWriteLock != nil].filter { $0 }.count
    guard modes <= 1 else {
      throw ValidationError("--shared-lane, --outbox and --hold-write-lock exclude each other.")
    }
    guard pauseMs >= 0 else { throw ValidationError("--pause-ms cannot be negative.") }
    guard flushEvery > 0 else { throw ValidationError("--flush-every must be positive.") }
    if let windowMs, windowMs <= 0 { throw ValidationError("--window-ms must be positive.") }
    if let holdWriteLock, !(holdWriteLock > 0) {
      throw ValidationError("--hold-write-lock needs a positive number of seconds.")
    }
    if postgres != nil, !sharedLane {
      throw ValidationError("--postgres goes with --shared-lane.")
    }
    let files = sharedLane ? (postgres == nil ? 1 : 0) : (outbox ? 2 : holdWriteLock == nil ? 2 : 1)
    let numbers = sharedLane ? 3 : outbox ? 2 : 0
    guard positional.count == files + numbers,
      positional.dropFirst(files).allSatisfy({ Int($0) != nil })
    else {
      throw ValidationError(
        "expected \(files) path\(files == 1 ? "" : "s") and \(numbers) number\(numbers == 1 ? "" : "s"), "
          + "got: \(positional.joined(separator: " "))")
    }
  }

  func run() async throws {
    let numbers = positional.compactMap { Int($0) }
    if sharedLane {
      await SharedLaneProbe.run(
        log: postgres.map { .postgres(url: $0) } ?? .sqlite(path: positional[0]),
        lane: lane, node: numbers[0], nodes: numbers[1], count: numbers[2], pause: pauseMs)
    }
    if outbox {
      await OutboxProbe.run(
        log: positional[0], outbox: positional[1], node: numbers[0], count: numbers[1])
    }
    if let holdWriteLock { holdDatabaseWriteLock(on: positional[0], for: holdWriteLock) }
    await PersistenceProbe.run(
      database: positional[0], flushLog: positional[1], flushEvery: flushEvery,
      window: windowMs.map { ($0, $0) } ?? (5, 50), mode: mode)
  }
}

/// Ends the probe with status 2 and `message` on standard error.
func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("SluiceCrashProbe: \(message)\n".utf8))
  exit(2)
}
