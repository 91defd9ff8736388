import Sluice
import SluiceTesting
import Testing

/// The answer a lookup gets: the live one by default.
private struct Lookup: DependencyKey {
  var answer: @Sendable (String) async throws -> String
  static let defaultValue = Lookup(answer: { "live \($0)" })
}

extension Dependencies {
  fileprivate var lookup: Lookup {
    get { self[Lookup.self] }
    set { self[Lookup.self] = newValue }
  }
}

/// Sets `text` to the lookup's answer, 300 ms after the last `Query` (on the store's clock).
private let lookupEffects = Effects<Counter>()
  .on(Query.self, policy: .debounce(for: .milliseconds(300))) { action, context in
    let answer = try await context.dependencies.lookup.answer(action.text)
    context.dispatch(SetText(text: answer))
  }

/// `TestStore(…) { $0.x = … }`: dependencies overridden per test store.
@Suite struct TestStoreDependenciesTests {
  @Test func aTestStoreReadsTheDependenciesItWasGivenAndTheDefaultsOtherwise() async {
    let clock = ManualClock()
    let faked = TestStore(initialState: Counter(), reducer: counterReducer, effects: lookupEffects)
    {
      $0.lookup = Lookup(answer: { "fake \($0)" })
      $0.clock = clock
    }
    await faked.send(Query(text: "a")) { $0.text = "a" }
    await clock.advance(by: .milliseconds(300))
    await faked.receive(SetText.self) { $0.text = "fake a" }

    // Only the clock is set here: the lookup is the default one.
    let live = TestStore(initialState: Counter(), reducer: counterReducer, effects: lookupEffects) {
      $0.clock = clock
    }
    await live.send(Query(text: "b")) { $0.text = "b" }
    await clock.advance(by: .milliseconds(300))
    await live.receive(SetText.self) { $0.text = "live b" }
  }

  @Test func testStoresRunningAtOnceKeepTheirOwnFakes() async {
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<8 {
        group.addTask {
          let clock = ManualClock()
          let store = TestStore(
            initialState: Counter(), reducer: counterReducer, effects: lookupEffects
          ) {
            $0.lookup = Lookup(answer: { "\(index) \($0)" })
            $0.clock = clock
          }
          await store.send(Query(text: "q")) { $0.text = "q" }
          await clock.advance(by: .milliseconds(300))
          await store.receive(SetText.self) { $0.text = "\(index) q" }
        }
      }
    }
  }
}
