/// A handle on one running effect.
///
/// Dropping the handle does not cancel the work; the work is cancelled with its store or
/// dispatcher, or by ``cancel()``.
public struct EffectTask: Sendable {
  let task: Task<Void, Never>
  let token: UInt64
  let runtime: EffectRuntime

  /// Cancels the work (cooperatively: it stops at its next cancellation check or `await` that
  /// honours cancellation).
  public func cancel() {
    runtime.cancel(token: token)
  }

  /// Whether ``cancel()`` was called, or the work was cancelled otherwise.
  public var isCancelled: Bool { task.isCancelled }

  /// Resumes once the work finished (errors it threw were reported on the error channels).
  public func finish() async {
    await task.value
  }
}
