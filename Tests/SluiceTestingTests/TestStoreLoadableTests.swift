import CustomDump
import Foundation
import Sluice
import SluiceTesting
import Testing

/// An error that is not `Equatable`.
private struct Offline: Error {}
/// An error that is.
private struct Timeout: Error, Equatable {}

/// `Load` fails with `error`.
private func failingStore(_ error: any Error & Sendable) -> TestStore<Counter> {
  TestStore(
    initialState: Counter(), reducer: counterReducer,
    effects: Effects<Counter>().load(Load.self, as: Loaded.self) { _, _ in throw error })
}

/// How failures show a `Loadable`: what takes part in its equality, and why two failures differ.
@Suite struct TestStoreLoadableTests {
  @Test func aFailureWhoseErrorIsNotEquatableSaysSoAndHowToFixIt() async throws {
    let store = failingStore(Offline())
    await store.send(Load(to: 1)) { $0.value.start() }
    let failures = await expectFailures(
      "A state change does not match the expectation after receiving Loaded"
    ) {
      await store.receive(Loaded.self) { $0.value.fail(Offline()) }
    }
    let failure = try #require(failures.first)
    #expect(
      failure.text.contains(
        "The error of a failed Loadable, Offline, is not Equatable: a LoadError wrapping it "
          + "equals only copies of itself"))
    #expect(failure.text.contains("Make Offline Equatable (`extension Offline: Equatable {}`)"))
    #expect(failure.text.contains("LoadError(Offline())"))
    // The timestamps are no part of the equality, and are not shown.
    #expect(!failure.text.contains("startedAt"))
    #expect(!failure.text.contains("finishedAt"))
    await store.finish()
  }

  @Test func aFailureWhoseErrorIsEquatableIsAsserted() async {
    let store = failingStore(Timeout())
    await store.send(Load(to: 1)) { $0.value.start() }
    await store.receive(Loaded.self) { $0.value.fail(Timeout()) }
    await store.finish()
  }

  @Test func aDiffOfLoadablesShowsNoTimestamps() async throws {
    let store = makeStore()
    await store.send(Load(to: 42)) { $0.value.start() }
    let failures = await expectFailures(
      "A state change does not match the expectation after receiving Loaded"
    ) {
      await store.receive(Loaded.self) { $0.value.fill(41) }
    }
    let lines = try #require(failures.first).lines
    #expect(lines.contains { $0.hasPrefix("−") && $0.contains(".loaded(41)") })
    #expect(lines.contains { $0.hasPrefix("+") && $0.contains(".loaded(42)") })
    #expect(!lines.contains { $0.contains("startedAt") || $0.contains("finishedAt") })
    // Nothing about errors that are not Equatable: there is none.
    #expect(!lines.contains { $0.contains("not Equatable") })
    await store.finish()
  }

  @Test func aLoadableDumpsWhatItsEqualityCompares() {
    #expect(String(customDumping: LoadError(Offline())) == "LoadError(Offline())")
    var loadable = Loadable<Int>.loaded(1)
    loadable.start()
    loadable.fail(Offline())
    #expect(
      String(customDumping: loadable) == """
        Loadable(
          status: .failed(
            LoadError(Offline())
          ),
          kept: 1
        )
        """)
  }
}
