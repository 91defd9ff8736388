import Sluice
import SluiceTesting
import XCTest

/// `TestStore` under XCTest (outside a Swift Testing test it reports with `XCTFail`). Only
/// passing flows: XCTest on Linux cannot expect a failure.
final class TestStoreXCTests: XCTestCase {
  func testExhaustiveFlow() async {
    let clock = ManualClock()
    let store = makeStore(clock: clock)
    await store.send(Increment()) { $0.count = 1 }
    await store.send(Load(to: 42)) { $0.value.start() }
    await store.receive(Loaded.self) { $0.value.fill(42) }
    await store.send(Ping(value: 2))
    await store.receive(Pong(value: 2)) { $0.results = ["pong 2"] }
    await store.send(Query(text: "x")) { $0.text = "x" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(Results(text: "x")) { $0.results = ["x"] }
    await store.finish()
    XCTAssertEqual(store.state.count, 1)
    XCTAssertEqual(store.store.effectsInFlight, 0)
  }

  func testNonExhaustiveFlow() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(Burst())
    await store.receive(Pong(value: 3)) { $0.results = ["pong 3"] }
    XCTAssertEqual(store.state.count, 1)
  }
}
