/// Whether `condition` holds within `timeout`: it is checked at once, then every 5 ms.
///
/// For a test that waits for another task, thread or process to reach a state it cannot be told
/// about. The timeout is a hang guard, never a claim about speed: its expiry means a deadlock,
/// so it is at least ``hangGuard`` (the default) whatever the test expects.
///
/// ```swift
/// #expect(await eventually { lane.stopReason != nil })
/// ```
public func eventually(
  within timeout: Duration = hangGuard, _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: max(timeout, hangGuard))
  while clock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}
