import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/Sluice.md (the module's landing page),
// compiled and run.

enum SluiceLandingPage {
  struct Counter: Equatable, Sendable { var value = 0 }
  struct Increment: Action {}

  @Suite("Landing page: Sluice")
  struct Tests {
    @Test func theObserverPrintsTheCurrentValueThenTheChange() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ items: Any...) {
        output.append(items.map { "\($0)" }.joined(separator: " "))
      }

      let store = Store(
        initialState: Counter(),
        reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
      let subscription = store.observe(\.value) { change in print(change.old, "→", change.new) }
      // The observer printed the current value: "0 → 0"
      store.dispatch(Increment())  // prints "0 → 1"

      #expect(output.lines == ["0 → 0", "0 → 1"])
      #expect(store.state.value == 1)
      subscription.cancel()
    }
  }
}
