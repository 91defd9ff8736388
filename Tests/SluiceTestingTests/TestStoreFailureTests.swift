import IssueReporting
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

private struct Boom: Error {}

/// An issue reporter that keeps the messages it is given, instead of failing the test.
private struct Collector: IssueReporting.IssueReporter {
  let messages = TestLog<(message: String, line: UInt, column: UInt)>()

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    messages.append((message() ?? "", line, column))
  }
}

/// An exhaustive `TestStore` fails when it must, with the message that says why.
@Suite struct TestStoreFailureTests {
  // MARK: - Reporting

  @Test func failuresGoThroughIssueReporting() async throws {
    // A reporter installed with IssueReporting's `withIssueReporters` gets the failure: the
    // test store reports with `reportIssue`, which fails a Swift Testing or XCTest test, or
    // warns outside tests.
    let collector = Collector()
    let store = makeStore()
    let line = #line + 2
    _ = await withIssueReporters([collector]) {
      await store.send(Increment()) { $0.count = 2 }
    }
    let reported = try #require(collector.messages.values.first)
    #expect(collector.messages.values.count == 1)
    #expect(reported.message.contains("A state change does not match the expectation"))
    #expect(reported.line == UInt(line))
    #expect(reported.column > 1)  // the call's, not a default
  }

  // MARK: - send

  @Test func wrongStateInSend() async throws {
    let store = makeStore()
    let line = #line + 2
    let failures = await expectFailures("A state change does not match the expectation") {
      await store.send(Increment()) { $0.count = 2 }
    }
    let failure = try #require(failures.first)
    #expect(failure.text.contains("after sending Increment"))
    #expect(failure.text.contains("(Expected: −, Actual: +)"))
    #expect(failure.lines.contains { $0.hasPrefix("−") && $0.contains("count: 2") })
    #expect(failure.lines.contains { $0.hasPrefix("+") && $0.contains("count: 1") })
    // Only the changed field is marked.
    #expect(failure.lines.filter { $0.hasPrefix("−") || $0.hasPrefix("+") }.count == 2)
    // Reported where `send` was called.
    #expect(failure.line == line)
    #expect(failure.fileID.hasSuffix("TestStoreFailureTests.swift"))
    // The state is the store's, whatever the assertion said.
    #expect(store.state.count == 1)
  }

  @Test func stateChangedButNoClosure() async throws {
    let store = makeStore()
    let failures = await expectFailures(
      "State was not expected to change after sending SetText, but a change occurred"
    ) {
      await store.send(SetText(text: "new"))
    }
    let lines = try #require(failures.first).lines
    #expect(lines.contains { $0.hasPrefix("−") && $0.contains("text: \"\"") })
    #expect(lines.contains { $0.hasPrefix("+") && $0.contains("text: \"new\"") })
  }

  @Test func assertionClosureThrows() async {
    let store = makeStore()
    await expectFailures("The assertion closure threw Boom") {
      await store.send(Increment()) { _ in throw Boom() }
    }
    // The store goes on: the next assertion starts from the real state.
    await store.send(Increment()) { $0.count = 2 }
  }

  @Test func sendingWhileReceivedActionsAreUnasserted() async {
    let store = makeStore()
    await store.send(Ping(value: 1))
    await store.store.settle()
    let line = #line + 2
    let failures = await expectFailures("Must handle 1 received action before sending") {
      await store.send(Increment()) { $0.count = 1 }
    }
    #expect(failures.first?.text.contains("Pong(value: 1)") == true)
    #expect(failures.first?.line == line)
    // The unasserted actions were dropped with the failure.
    await store.send(Increment()) { $0.count = 2 }
  }

  // MARK: - receive

  @Test func receiveAnotherType() async {
    let store = makeStore()
    await store.send(Ping(value: 4))
    let line = #line + 2
    let failures = await expectFailures("Expected to receive Loaded, but received Pong") {
      await store.receive(Loaded.self)
    }
    #expect(failures.first?.text.contains("value: 4") == true)
    #expect(failures.first?.line == line)
    await store.finish()
  }

  @Test func receiveEquatableActionWithAnotherPayload() async throws {
    let store = makeStore()
    await store.send(Ping(value: 1))
    let line = #line + 2
    let failures = await expectFailures("The action received does not match the expectation") {
      await store.receive(Pong(value: 2)) { $0.results = ["pong 1"] }
    }
    let failure = try #require(failures.first)
    #expect(failure.text.contains("(Expected: −, Received: +)"))
    #expect(failure.lines.contains { $0.hasPrefix("−") && $0.contains("Pong(value: 2)") })
    #expect(failure.lines.contains { $0.hasPrefix("+") && $0.contains("Pong(value: 1)") })
    #expect(failure.line == line)
    await store.finish()
  }

  @Test func receiveWithWrongState() async {
    let store = makeStore()
    await store.send(Ping(value: 1))
    await expectFailures("A state change does not match the expectation after receiving Pong") {
      await store.receive(Pong(value: 1)) { $0.results = ["pong 2"] }
    }
    await store.finish()
  }

  @Test func receiveWhenNothingWasReceivedFailsWithoutWaiting() async {
    let store = makeStore()
    // Were it to wait, it would wait an hour: the bound below is the hang guard.
    store.timeout = .seconds(3600)
    await store.send(Increment()) { $0.count = 1 }
    let duration = await elapsed {
      await expectFailures(
        "Expected to receive Pong, but no action was received and no effect is running"
      ) {
        await store.receive(Pong.self)
      }
    }
    #expect(duration < hangGuard, "a hang guard")
  }

  @Test func receiveTimesOutWhileAnEffectIsInFlight() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    let duration = await elapsed {
      await expectFailures(
        "Expected to receive Waited within 0.05 seconds, but none arrived; 1 effect is still "
          + "running: the effect on Wait."
      ) {
        await store.receive(Waited.self, timeout: .milliseconds(50))
      }
    }
    #expect(duration >= .milliseconds(50))
    #expect(duration < hangGuard, "a hang guard")
    // The effect is still blocked: let it finish and assert what it dispatches.
    await clock.advance(by: .seconds(1))
    await store.receive(Waited()) { $0.waiting = false }
    await store.finish()
  }

  @Test func receiveUsesTheStoreTimeout() async {
    let store = makeStore()
    store.timeout = .milliseconds(50)
    await store.send(Wait(until: .seconds(1))) { $0.waiting = true }
    await expectFailures("Expected to receive Waited within 0.05 seconds") {
      await store.receive(Waited.self)
    }
    store.skipInFlightEffects()
    await waitForCancelledEffects(store)
  }

  @Test func receiveAssertionClosureThrows() async {
    let store = makeStore()
    await store.send(Ping(value: 1))
    await expectFailures("The assertion closure threw Boom") {
      await store.receive(Pong.self) { _ in throw Boom() }
    }
    await store.finish()
  }

  // MARK: - finish

  @Test func finishWithAnEffectStillRunning() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Work(until: .seconds(1)))
    let duration = await elapsed {
      await expectFailures("1 effect is still running after 0.05 seconds: the effect on Work.") {
        await store.finish(timeout: .milliseconds(50))
      }
    }
    #expect(duration < hangGuard, "a hang guard")
    // finish() does not cancel it.
    #expect(store.store.effectsInFlight == 1)
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func finishWithUnassertedActions() async throws {
    let store = makeStore()
    await store.send(Burst())
    let line = #line + 2
    let failures = await expectFailures("3 received actions left unasserted") {
      await store.finish()
    }
    let failure = try #require(failures.first)
    #expect(failure.text.contains("Increment()"))
    #expect(failure.text.contains("SetText(text: \"burst\")"))
    #expect(failure.text.contains("Pong(value: 3)"))
    #expect(failure.line == line)
  }
}
