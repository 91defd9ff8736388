import Foundation
import SluiceTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `sluice-demo` as a user would: a process in a folder, its output and exit status.
struct DemoProcess {
  struct Result {
    let status: Int32
    let output: String
    let errors: String
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  static let name = "sluice-demo"

  /// Runs the demo with `arguments` in `folder`; fails when it does not finish within
  /// `timeout` seconds. With `terminal`, standard output is a pseudo-terminal.
  static func run(
    _ arguments: [String], in folder: URL, environment: [String: String] = [:],
    terminal: Bool = false, timeout: TimeInterval = hangGuardSeconds
  ) async throws -> Result {
    guard let executable = BuiltExecutable.locate(name) else {
      throw Failure(
        description: "\(name) not found next to the test binary; build it with "
          + "`swift build --build-tests`")
    }
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Swift.Result {
            try runBlocking(
              executable, arguments, in: folder, environment: environment, terminal: terminal,
              timeout: timeout)
          })
      }.start()
    }
  }

  /// Runs the demo once for each list of arguments, all at once, in `folder`; returns their
  /// results in the order they ended.
  static func runAtOnce(_ argumentLists: [[String]], in folder: URL) async throws -> [Result] {
    try await withThrowingTaskGroup(of: Result.self) { group in
      for arguments in argumentLists {
        group.addTask { try await run(arguments, in: folder) }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
  }

  private static func runBlocking(
    _ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String],
    terminal: Bool, timeout: TimeInterval
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = folder
    var merged = ProcessInfo.processInfo.environment
    // Colour depends only on what a test asks for, not on the environment it runs in.
    merged["NO_COLOR"] = nil
    merged["FORCE_COLOR"] = nil
    merged["TERM"] = "xterm"
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    process.standardInput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    let output: OutputReader
    if terminal {
      let pty = try PseudoTerminal()
      process.standardOutput = pty.secondary
      output = OutputReader(pty.primary, closing: pty.secondary)
    } else {
      let pipe = Pipe()
      process.standardOutput = pipe
      output = OutputReader(pipe.fileHandleForReading, closing: pipe.fileHandleForWriting)
    }
    let errorReader = OutputReader(
      errors.fileHandleForReading, closing: errors.fileHandleForWriting)
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    output.start()
    errorReader.start()
    guard exited.wait(timeout: .now() + timeout) == .success else {
      process.terminate()
      throw Failure(description: "\(name) \(arguments) did not finish in \(timeout) s")
    }
    return Result(
      status: process.terminationStatus, output: output.finish(), errors: errorReader.finish())
  }
}

/// Reads a file handle to its end on a thread of its own, so a full pipe never blocks the
/// child.
final class OutputReader: @unchecked Sendable {
  private let handle: FileHandle
  private let writeEnd: FileHandle
  private let done = DispatchSemaphore(value: 0)
  private var data = Data()

  init(_ handle: FileHandle, closing writeEnd: FileHandle) {
    self.handle = handle
    self.writeEnd = writeEnd
  }

  /// Starts reading, once the child holds its own copy of the write end.
  func start() {
    try? writeEnd.close()
    Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        // A pseudo-terminal reports EIO once the child closed its side.
        let count = read(handle.fileDescriptor, &buffer, buffer.count)
        if count <= 0 { break }
        data.append(contentsOf: buffer[0..<count])
      }
      done.signal()
    }.start()
  }

  /// Waits for the end of the output and returns it.
  func finish() -> String {
    done.wait()
    try? handle.close()
    return String(decoding: data, as: UTF8.self)
  }
}
