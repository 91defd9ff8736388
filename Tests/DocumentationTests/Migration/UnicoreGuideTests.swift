import Foundation
import Sluice
import SluiceTesting
import Testing

// The Sluice snippets of Sources/Sluice/Sluice.docc/MigratingFromUnicore.md, compiled and run.
// Inside `UnicoreGuide`, `print` is the namespace's own: it records each line, so a test can
// assert what a snippet printed, and in what order.

enum UnicoreGuide {
  // MARK: The app state

  struct AppState: Equatable, Sendable {
    var counter: Int
    var step: Int

    // Initial state
    static let initial = AppState(counter: 0, step: 1)
  }

  // MARK: Actions

  struct StepChangeRequested: Action {
    let step: Int
  }

  struct CounterIncreaseRequested: Action {}
  struct CounterDecreaseRequested: Action {}

  // MARK: Reducers

  /// The guide's typed reducer (the same code as in `typedHandlers()`), for the other tests.
  static let reducer = Reducer<AppState>()
    .on(StepChangeRequested.self) { state, action in state.step = action.step }
    .on(CounterIncreaseRequested.self) { state, _ in state.counter += state.step }
    .on(CounterDecreaseRequested.self) { state, _ in state.counter -= state.step }

  /// Unicore's reducer as its README writes it (`Action` is Sluice's protocol here).
  static func reduce(_ old: AppState, with action: any Action) -> AppState {
    switch action {
    case let payload as StepChangeRequested:
      return AppState(counter: old.counter, step: payload.step)
    case is CounterIncreaseRequested:
      return AppState(counter: old.counter + old.step, step: old.step)
    case is CounterDecreaseRequested:
      return AppState(counter: old.counter - old.step, step: old.step)
    default:
      return old
    }
  }

  // MARK: Observe on the main actor

  @MainActor final class CounterScreen {
    var counterLabelText = ""

    func connect(to store: Store<AppState>) {
      store.observe(owner: self, on: .mainActor) { screen, state in
        MainActor.assumeIsolated { screen.counterLabelText = String(state.counter) }
      }
    }
  }

  // MARK: Dispose of subscriptions

  enum Unsubscribe {
    final class YourClass {
      private var subscription: Subscription?

      func connect(to store: Store<AppState>) {
        subscription = store.observe { state in
          // handle the state
          print("counter \(state.counter)")
        }
      }
      // No deinit: the subscription cancels itself when it is deinitialized
    }
  }

  enum Disposing {
    final class YourClass {
      let bag = SubscriptionBag()

      func connect(to store: Store<AppState>) {
        store.observe { state in
          // handle the state
          print("counter \(state.counter)")
        }.store(in: bag)
        // when YourClass is deinitialized, so is the bag, which cancels what it holds
      }
    }
  }

  // MARK: Test support

  /// The lines the snippets printed.
  static let printed = Printed()

  /// Records a line as `Swift.print` would write it.
  static func print(_ items: Any...) {
    printed.append(items.map { "\($0)" }.joined(separator: " "))
  }

  typealias Printed = PrintedLines

  /// Waits until `condition` holds, for at most five seconds; returns whether it held.
  @MainActor static func eventually(_ condition: () -> Bool) async -> Bool {
    await eventuallyOnMainActor(condition)
  }
}

extension UnicoreGuide {
  @Suite("Migrating from Unicore", .serialized)
  struct GuideTests {
    init() { _ = printed.take() }

    @Test func yourReduceFunctionRunsInAStore() {
      let store = Store(
        initialState: AppState.initial,
        reducer: Reducer { state, action in state = reduce(state, with: action) })
      store.dispatch(StepChangeRequested(step: 5))
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(CounterDecreaseRequested())
      #expect(store.state == AppState(counter: 5, step: 5))
    }

    @Test func typedHandlers() {
      let reducer = Reducer<AppState>()
        .on(StepChangeRequested.self) { state, action in state.step = action.step }
        .on(CounterIncreaseRequested.self) { state, _ in state.counter += state.step }
        .on(CounterDecreaseRequested.self) { state, _ in state.counter -= state.step }
      let store = Store(initialState: AppState.initial, reducer: reducer)
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(StepChangeRequested(step: 3))
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(CounterDecreaseRequested())
      store.dispatch(CounterDecreaseRequested())
      #expect(store.state == AppState(counter: -2, step: 3))
    }

    @Test func theStepOnlyReducerLeavesTheCounter() {
      let reducer = Reducer<AppState>()
        .on(StepChangeRequested.self) { state, action in
          state.step = action.step  // counter stays as it is
        }
      let store = Store(initialState: AppState(counter: 4, step: 1), reducer: reducer)
      store.dispatch(StepChangeRequested(step: 7))
      store.dispatch(CounterIncreaseRequested())  // not handled: nothing changes
      #expect(store.state == AppState(counter: 4, step: 7))
    }

    @Test func stepChangeRequestedUpdatesTheStep() async {
      let store = TestStore(initialState: AppState(counter: 0, step: 1), reducer: reducer)
      await store.send(StepChangeRequested(step: 7)) { $0.step = 7 }
    }

    @Test func counterIncreaseRequestedIncreasesTheCounter() async {
      let store = TestStore(initialState: AppState(counter: 0, step: 3), reducer: reducer)
      await store.send(CounterIncreaseRequested()) { $0.counter = 3 }
    }

    @Test func counterDecreaseRequestedDecreasesTheCounter() async {
      let store = TestStore(initialState: AppState(counter: 0, step: 3), reducer: reducer)
      await store.send(CounterDecreaseRequested()) { $0.counter = -3 }
    }

    @Test func observeReceivesTheCurrentStateThenEveryChange() {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      let bag = SubscriptionBag()
      store.observe { state in
        // do something with state
        print(state.counter)
      }.store(in: bag)  // cancelled when the bag is deinitialized
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(StepChangeRequested(step: 1))  // no change: the observer is not called
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take() == ["0", "1", "2"])

      bag.cancelAll()
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take().isEmpty)
    }

    @MainActor @Test func theScreenIsUpdatedOnTheMainActor() async {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      var screen: CounterScreen? = CounterScreen()
      screen?.connect(to: store)
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(CounterIncreaseRequested())
      #expect(await eventually { screen?.counterLabelText == "2" })

      screen = nil  // the owner is gone: its observer is removed
      #expect(store.observerCount == 0)
    }

    @Test func dispatchReturnsAfterTheReducerRan() async {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      let action = CounterIncreaseRequested()  // #1
      store.dispatch(action)  // #2
      #expect(store.state.counter == 1)  // the reducer has run

      store.dispatch(action, mode: .async)  // queue it and return at once, as Unicore does
      await store.send(action)  // or resume once it was processed, without blocking a thread
      #expect(store.state.counter == 3)
    }

    @Test func onActionSeesEveryActionAndTheStateBefore() {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      let tap = store.onAction { action, stateBefore in
        print("\(type(of: action)) with counter \(stateBefore.counter)")
      }
      store.dispatch(CounterIncreaseRequested())
      store.dispatch(StepChangeRequested(step: 2))
      store.dispatch(CounterIncreaseRequested())
      tap.cancel()
      store.dispatch(CounterIncreaseRequested())
      #expect(
        printed.take() == [
          "CounterIncreaseRequested with counter 0", "StepChangeRequested with counter 1",
          "CounterIncreaseRequested with counter 1",
        ])
    }

    @Test func aSubscriptionInAPropertyEndsWithItsOwner() {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      var object: Unsubscribe.YourClass? = Unsubscribe.YourClass()
      object?.connect(to: store)
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take() == ["counter 0", "counter 1"])
      #expect(store.observerCount == 1)

      object = nil
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take().isEmpty)
      #expect(store.observerCount == 0)
    }

    @Test func aBagEndsWithItsOwner() {
      let store = Store(initialState: AppState.initial, reducer: reducer)
      var object: Disposing.YourClass? = Disposing.YourClass()
      object?.connect(to: store)
      object?.connect(to: store)
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take() == ["counter 0", "counter 0", "counter 1", "counter 1"])
      #expect(object?.bag.count == 2)

      object = nil
      store.dispatch(CounterIncreaseRequested())
      #expect(printed.take().isEmpty)
      #expect(store.observerCount == 0)
    }

    @Test func theInstallSnippetNamesRealProducts() throws {
      let snippet = """
        dependencies: [
          .package(path: "../Sluice")  // or the URL of your Sluice repository
        ],
        targets: [
          .target(
            name: "App",
            dependencies: [
              .product(name: "Sluice", package: "Sluice"),
              .product(name: "SluiceSQLite", package: "Sluice"),  // persistence in SQLite
            ])
        ]
        """
      let manifest = try String(
        contentsOf: DocumentationFiles.root.appendingPathComponent("Package.swift"),
        encoding: .utf8)
      #expect(manifest.contains("name: \"Sluice\","))
      let products = snippet.components(separatedBy: ".product(name: \"").dropFirst().map {
        String($0.prefix { $0 != "\"" })
      }
      #expect(products == ["Sluice", "SluiceSQLite"])
      for product in products {
        #expect(manifest.contains(".library(name: \"\(product)\""))
      }
    }
  }
}
