import Sluice
import SluiceTesting
import Testing

/// A `TestStore` with `exhaustivity = .off` checks only what the test asserts.
@Suite struct TestStoreNonExhaustiveTests {
  private func makeLenientStore(clock: ManualClock = ManualClock()) -> TestStore<Counter> {
    let store = makeStore(clock: clock)
    store.exhaustivity = .off
    return store
  }

  @Test func assertingOneFieldOfAMultiFieldChange() async {
    let store = makeLenientStore()
    await store.send(SetBoth(count: 3, text: "x")) { $0.count = 3 }
    await store.send(SetBoth(count: 4, text: "y")) { $0.text = "y" }
    #expect(store.state == Counter(count: 4, text: "y"))
  }

  @Test func noClosureChecksNothing() async {
    let store = makeLenientStore()
    await store.send(SetBoth(count: 3, text: "x"))
  }

  @Test func relativeMutation() async {
    let store = makeLenientStore()
    await store.send(Increment()) { $0.count += 1 }
    await store.send(Increment()) { $0.count += 1 }
    #expect(store.state.count == 2)
  }

  @Test func relativeMutationWhenOtherFieldsChangeToo() async {
    // Pinned: a relative mutation of one field fails when the action also changes another
    // field: applied to the state before, the other field differs; applied to the state
    // after, the field is incremented twice. (TCA applies the closure to the state after
    // only, so it fails on every relative mutation, even `relativeMutation` above.) Assign
    // absolute values in non-exhaustive tests.
    let store = makeLenientStore()
    await store.send(SetBoth(count: 1, text: "x")) { $0.count = 1 }
    await expectFailures("A state change does not match the expectation after sending SetBoth") {
      await store.send(SetBoth(count: 2, text: "y")) { $0.count += 1 }
    }
  }

  @Test func contradictingAssignmentStillFails() async throws {
    let store = makeLenientStore()
    let failures = await expectFailures(
      "A state change does not match the expectation after sending SetBoth"
    ) {
      await store.send(SetBoth(count: 3, text: "x")) { $0.count = 4 }
    }
    let lines = try #require(failures.first).lines
    #expect(lines.contains { $0.hasPrefix("−") && $0.contains("count: 4") })
    #expect(lines.contains { $0.hasPrefix("+") && $0.contains("count: 3") })
    // Only the asserted field differs in the diff: `text`, which the test did not assert, is
    // not shown as a difference.
    #expect(!lines.contains { $0.hasPrefix("−") && $0.contains("text:") })
    #expect(!lines.contains { $0.hasPrefix("+") && $0.contains("text:") })
  }

  @Test func receiveSkipsEarlierActionsOfOtherTypes() async {
    let store = makeLenientStore()
    await store.send(Burst())
    // `Increment` and `SetText` come first; `count` was set by the skipped `Increment`.
    await store.receive(Pong.self) {
      $0.count = 1
      $0.results = ["pong 3"]
    }
    #expect(store.state == Counter(count: 1, text: "burst", results: ["pong 3"]))
  }

  @Test func receiveEquatableSkipsOtherPayloads() async {
    let store = makeLenientStore()
    await store.send(Pings(values: [1, 2, 3]))
    await store.receive(Pong(value: 2)) { $0.results = ["pong 1", "pong 2"] }
    await store.receive(Pong(value: 3)) { $0.results = ["pong 1", "pong 2", "pong 3"] }
  }

  @Test func receiveSkipsOnlyUpToTheMatch() async {
    let store = makeLenientStore()
    await store.send(Burst())
    await store.receive(SetText.self) { $0.text = "burst" }
    await store.receive(Pong(value: 3))
  }

  @Test func receiveOfAnActionThatNeverComesStillFails() async {
    let store = makeLenientStore()
    await store.send(Burst())
    await store.store.settle()
    await expectFailures(
      "Expected to receive Loaded, but only other actions were received (Increment, SetText, "
        + "Pong) and no effect is running"
    ) {
      await store.receive(Loaded.self)
    }
  }

  @Test func sendWithUnassertedReceivedActions() async {
    let store = makeLenientStore()
    await store.send(Burst())
    await store.store.settle()
    await store.send(Increment()) { $0.count = 2 }
  }

  @Test func leftoverActionsAndEffectsDoNotFail() async {
    let clock = ManualClock()
    do {
      let store = makeLenientStore(clock: clock)
      await store.send(Burst())
      await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
      await waitUntil("Burst's actions were reduced") { store.state.results == ["pong 3"] }
      await store.finish(timeout: .milliseconds(10))
    }
    // The deinitialization cancelled the effect still sleeping.
    await waitUntil("the sleeper is gone") { clock.sleeperCount == 0 }
  }

  @Test func exhaustivityCanBeTurnedOffForTheEndOfATest() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    store.exhaustivity = .off
  }
}
