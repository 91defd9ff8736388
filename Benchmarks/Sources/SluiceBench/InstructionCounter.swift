import Foundation

/// Counts the instructions per operation of a case with valgrind's callgrind, as
/// `Scripts/callgrind-per-op.sh` does: the case's loop runs once (`--once`) for N and for 2N
/// iterations under callgrind, and (Ir(2N) − Ir(N)) / N cancels start-up and setup.
///
/// Instruction counts are deterministic for a binary and its inputs, so they compare builds on a
/// noisy machine where nanoseconds cannot.
struct InstructionCounter {
  private let valgrind: String
  /// A copy of this binary without debug information: valgrind 3.19 cannot read the DWARF of
  /// C thread-local variables.
  private let binary: String
  private let folder: URL
  private let extra: Bool

  /// A counter, or `nil` (with a note on standard error) when valgrind or strip is missing.
  static func make(extra: Bool) -> InstructionCounter? {
    guard let valgrind = executable(named: "valgrind"), let strip = executable(named: "strip")
    else {
      printError("note: valgrind or strip is not installed; instructions_per_op is null")
      return nil
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sluice-bench-callgrind-\(getpid())")
    let binary = folder.appendingPathComponent("sluice-bench").path
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: me, toPath: binary)
    } catch {
      printError("note: cannot copy \(me) for callgrind (\(error)); instructions_per_op is null")
      return nil
    }
    guard run(strip, ["--strip-debug", binary]) else {
      printError("note: strip failed; instructions_per_op is null")
      return nil
    }
    return InstructionCounter(valgrind: valgrind, binary: binary, folder: folder, extra: extra)
  }

  /// Instructions per operation of the case `name`, whose operations take about `nsPerOp`
  /// natively; `nil` when a run fails.
  func perOperation(of name: String, nsPerOp: Double) -> Double? {
    // About 20 ms of native work per run (a second or two under callgrind).
    let iterations = max(100, min(20_000, Int(20_000_000 / max(nsPerOp, 1))))
    guard let small = total(name, iterations), let large = total(name, 2 * iterations) else {
      return nil
    }
    return Double(large - small) / Double(iterations)
  }

  /// Removes the stripped copy and the profiles.
  func cleanUp() {
    try? FileManager.default.removeItem(at: folder)
  }

  /// The total instructions of one run of `name`'s loop, `iterations` times.
  private func total(_ name: String, _ iterations: Int) -> Int? {
    let profile = folder.appendingPathComponent("callgrind.out.\(iterations)").path
    defer { try? FileManager.default.removeItem(atPath: profile) }
    let arguments =
      ["--tool=callgrind", "--callgrind-out-file=\(profile)", binary]
      + (extra ? ["--extra"] : [])
      + ["--filter", name, "--iterations", "\(iterations)", "--once"]
    guard Self.run(valgrind, arguments),
      let text = try? String(contentsOfFile: profile, encoding: .utf8)
    else { return nil }
    // "summary: N" (or "totals: N") is the run's total instruction count.
    for line in text.split(separator: "\n")
    where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
      return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
  }

  /// Runs `path` with `arguments`, its output discarded; returns whether it exited with 0.
  private static func run(_ path: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return false
    }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// The first executable file called `name` in the folders of `PATH`.
  private static func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}
