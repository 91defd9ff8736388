#if canImport(SluiceInspector)
  import Foundation
  import Sluice
  import SluiceInspector
  import Testing

  // The Swift snippet of Sources/SluiceInspector/SluiceInspector.docc/SluiceInspector.md (the
  // module's landing page), compiled and run.

  enum SluiceInspectorLandingPage {
    struct Counter: Equatable, Sendable { var value = 0 }
    struct Increment: Action {}

    @Suite("Landing page: SluiceInspector")
    struct Tests {
      @Test func theInspectorGivesAURLWithItsToken() async throws {
        let output = ArticleSupport.Output()
        @Sendable func print(_ items: Any...) {
          output.append(items.map { "\($0)" }.joined(separator: " "))
        }
        let dispatcher = Dispatcher()
        let store = Store(
          initialState: Counter(), dispatcher: dispatcher,
          reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })

        let inspector = try await Inspector.start(dispatcher)
        print("Open \(inspector.url)")

        store.dispatch(Increment())
        #expect(store.state.value == 1)
        #expect(output.lines.first?.hasPrefix("Open http://127.0.0.1:") == true)
        #expect(output.lines.first?.hasSuffix("/?token=\(inspector.token)") == true)
        await inspector.stop()
      }
    }
  }
#endif
