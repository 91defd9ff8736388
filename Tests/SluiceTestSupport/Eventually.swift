/// Whether `condition` holds within `timeout`: it is checked at once, then every 5 ms.
///
/// For a test that waits for another task, thread or process to reach a state it cannot be told
/// about; the timeout turns a hang into a failure, and is generous for a loaded machine.
///
/// ```swift
/// #expect(await eventually { lane.stopReason != nil })
/// ```
public func eventually(
  within timeout: Duration = .seconds(10), _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while clock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}
