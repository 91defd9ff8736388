import Foundation
import Testing

@testable import Sluice

/// S12 and S16: a lock's timeout is user input, so no duration traps. A timeout too long to
/// represent means "never" (no timer is armed); a negative one releases the lock at once.
@Suite struct LockTimeoutRangeTests {
  /// Durations longer than any timer: their nanoseconds, and for some their seconds, overflow.
  static let tooLong: [Duration] = [
    .seconds(Int64.max),
    .nanoseconds(Int64.max) + .seconds(1),
    Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max),
    .seconds(Int64.max) * 4,
  ]

  /// Durations before now, some far beyond what nanoseconds can count.
  static let negative: [Duration] = [
    .seconds(Int64.min),
    .seconds(-1),
    Duration(secondsComponent: Int64.min, attosecondsComponent: Int64.min),
    .seconds(Int64.min) * 4,
  ]

  @Test(arguments: tooLong)
  func aTimeoutTooLongToRepresentNeverReleasesTheLock(timeout: Duration) {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.log(dispatcher)
    let lock = dispatcher.pause(timeout: timeout)
    store.dispatch(TxAdd(id: 1))
    #expect(!lock.isReleased)
    #expect(store.state.ids.isEmpty)
    lock.release()
    #expect(store.state.ids == [1])
    #expect(issues.all.isEmpty)
  }

  @Test(arguments: negative)
  func aNegativeTimeoutReleasesTheLockAtOnceWithAReport(timeout: Duration) async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    let store = TxFixtures.log(dispatcher)
    let released = TxEvent()
    let lock = dispatcher.pause(timeout: timeout)
    lock.onRelease { released.signal() }
    store.dispatch(TxAdd(id: 1), mode: .async)
    #expect(await released.wait())
    #expect(await issues.wait(for: .lockTimedOut))
    #expect(await txEventually { store.state.ids == [1] })
  }

  @Test func aTimeoutWithHugeAttosecondsIsItsTotalLength() async {
    let issues = TxIssues()
    let dispatcher = Dispatcher(reporter: issues.reporter)
    // 0 s + 2⁶³ - 1 attoseconds: about 9.2 s, normalized by `Duration`; not a trap.
    let lock = dispatcher.pause(
      timeout: Duration(secondsComponent: 0, attosecondsComponent: Int64.max))
    #expect(!lock.isReleased)
    lock.release()
    #expect(issues.all.isEmpty)
  }
}
