import Foundation
import Sluice
import SluiceTestSupport
import Testing

@Suite struct ErrorChannelObserverConcurrencyTests {
  // An error reported while a synchronous observer of the channel is running on another thread
  // must still reach that observer (after the running call, never concurrently with it).
  @Test func anErrorReportedWhileTheObserverRunsElsewhereIsNotLost() async {
    let gates = EffGates()
    let store = effStore(
      effects: Effects<EffState>().on(EffPing.self) { _, context in
        await gates.wait()
        throw EffError(code: 2)
      })
    // The effect starts now, outside the lane the first error will hold.
    store.dispatch(EffPing())
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let received = Recorder<Int>()
    let subscription = store.errors.observe { event in
      let code = (event.error as? EffError)?.code ?? -1
      received.append(code)
      if code == 1 {
        entered.signal()
        _ = release.wait(timeout: hangGuardDeadline())
      }
    }

    // A dedicated thread reports the first error (an action carrying it) and stays in the
    // observer until released.
    async let first: Void = offPool {
      store.dispatch(EffCarry(value: 1, error: EffError(code: 1)))
    }
    #expect(await offPool { entered.wait(timeout: hangGuardDeadline()) == .success })
    // The effect reports the second error while the observer is busy on that thread.
    gates.open()
    #expect(await effEventually { store.effectsInFlight == 0 })
    release.signal()
    await first

    #expect(store.errors.totalCount == 2)
    #expect(received.values == [1, 2])
    subscription.cancel()
  }
}
