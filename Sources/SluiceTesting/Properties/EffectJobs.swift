import Dispatch
import Sluice

/// The executor a property run's effects prefer: it runs their jobs on the global queue and
/// counts those that wait for a thread or run. While the count is above zero an effect is busy,
/// however slowly a loaded machine runs it; at zero, every effect is suspended, on the run's
/// clock or on something else.
final class EffectJobs: TaskExecutor, Sendable {
  private let busy = Guarded(0)

  /// The jobs queued or running.
  var count: Int { busy.withLock { $0 } }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    busy.withLock { $0 += 1 }
    DispatchQueue.global().async {
      job.runSynchronously(on: executor)
      self.busy.withLock { $0 -= 1 }
    }
  }
}
