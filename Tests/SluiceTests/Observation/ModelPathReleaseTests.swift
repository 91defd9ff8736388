import Foundation
import SluiceTestSupport
import Testing

@testable import Sluice

/// A model's path lets go of the value a newer one replaces after its lock: the replaced
/// value's `deinit` may call back into the path.
@Suite struct ModelPathReleaseTests {
  /// A value that runs `onDeinit` when it goes; equal only to itself.
  final class Probe: Equatable, Sendable {
    let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void = {}) { self.onDeinit = onDeinit }
    deinit { onDeinit() }

    static func == (lhs: Probe, rhs: Probe) -> Bool { lhs === rhs }
  }

  struct Holder: Sendable {
    var probe = Probe()
  }

  @Test func aReplacedValueWhoseDeinitReadsThePathDoesNotDeadlock() async {
    let entry = ModelPath<Holder, Probe>(
      modelKeyPath: \StoreModel<Holder>.[tracked: \Holder.probe], current: Probe(),
      isEqual: { $0 == $1 })
    let readBack = Recorder<Bool>()
    // On a thread of its own, with a hang guard: a deadlock fails the test instead of hanging.
    let finished = await runOnThreads(1, timeout: hangGuardSeconds) { _ in
      entry.receive(Probe { readBack.append(entry.takeLatest() != nil) })
      entry.receive(Probe())
    }
    #expect(finished)
    #expect(readBack.values == [true])
  }
}
