import Dispatch

/// How long a test waits for an event before it calls the wait a hang: ten minutes.
///
/// A hang guard is longer than a whole run of the suite on a busy machine, because every test
/// runs at once: Swift Testing starts all the tests of the suite together (more than a thousand
/// in flight, with no width to set), so beside `stress-ng --cpu 2` any test can be starved for
/// about as long as the whole run takes (a minute or more on a slow CI machine). Its expiry means
/// a deadlock, never a slow machine. Every wall-clock bound in the tests whose expiry means
/// "something hung" is this one; bounds that are part of what a test checks (a product timeout,
/// a lock timeout the test sets, a test-clock advance) are not hang guards and stay as they are.
/// A thread that holds a lane for a test (an observer or effect blocked on a semaphore) waits at
/// least this long too, so that a starved test body never finds the lane already let go. A
/// test's `.timeLimit` trait, which counts in minutes, is `.timeLimit(.minutes(10))`, the same.
public let hangGuard: Duration = .seconds(600)

/// ``hangGuard`` in seconds, for the APIs and helpers that take a `TimeInterval`.
public let hangGuardSeconds: Double = 600

/// When a hang guard started now ends, for `DispatchSemaphore.wait(timeout:)` and the like.
public func hangGuardDeadline() -> DispatchTime { .now() + hangGuardSeconds }
