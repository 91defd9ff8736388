import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a program to its end without blocking a thread of the concurrency pool: a thread of
/// its own waits for it.
///
/// Foundation's `Process` is not used: on Linux it learns that a program ended when every
/// process holding one of its descriptors has ended, and `pg_ctl start` leaves the server
/// running with it, so `Process` would wait for the server to stop. Here a thread waits for the
/// program's own end (`waitpid`), and the program gets no descriptor beyond its standard ones.
enum ChildProcess {
  /// Why a program could not be run.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs `program` with `arguments`, standard input empty and both outputs appended to the
  /// file `output`; returns its exit status (128 + the signal for a program killed by one).
  static func run(_ program: String, _ arguments: [String], output: String) async throws -> Int32 {
    let pid = try spawn(program, arguments, output: output)
    return await withCheckedContinuation { continuation in
      let waiter = Thread {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
      }
      waiter.start()
    }
  }

  private static func spawn(_ program: String, _ arguments: [String], output: String) throws
    -> pid_t
  {
    #if canImport(Darwin)
      var actions: posix_spawn_file_actions_t? = nil
    #else
      var actions = posix_spawn_file_actions_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Descriptors opened without close-on-exec stay with the tests: the server would keep them.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    var environment = ProcessInfo.processInfo.environment
    environment["LC_ALL"] = "C"
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, nil, argv, envp)
    guard result == 0 else {
      throw Failure(description: "could not start \(program): \(String(cString: strerror(result)))")
    }
    return pid
  }
}
