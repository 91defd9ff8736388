import Foundation
import Sluice
import SluiceSQLite
import Testing

// The Sluice snippets of Sources/Sluice/Sluice.docc/MigratingFromRxStateFlow.md, compiled and
// run. Inside `RxStateFlowGuide`, `print` is the namespace's own: it records each line, so a
// test can assert what a snippet printed, and in what order.

enum RxStateFlowGuide {
  // MARK: Declare the state and how events change it

  struct AppState: Codable, Equatable, Sendable {
    var counter = 0

    static let reducer = Reducer<AppState>()
      .on(CounterEvent.self) { state, event in
        switch event {
        case .increase: state.counter += 1
        case .decrease: state.counter -= 1
        case .reset: state.counter = 0
        }
      }
  }

  // MARK: Compose states

  enum Composition {
    struct AnotherState: Codable, Equatable, Sendable {
      var value = ""

      static let reducer = Reducer<AnotherState>()
        .on(ValueChanged.self) { state, event in state.value = event.value }
    }

    struct ValueChanged: Action {
      let value: String
    }

    struct AppState: Codable, Equatable, Sendable {
      var counter = 0
      var another = AnotherState()

      static let reducer = Reducer.combine(
        Reducer<AppState>().on(CounterEvent.self) { state, event in
          if event == .increase { state.counter += 1 }
        },
        AnotherState.reducer.scoped(to: \AppState.another))
    }
  }

  // MARK: Events

  enum Simple {
    struct UpdateCounter: Action {}
  }

  enum CounterEvent: Action {
    case increase
    case decrease
    case reset
  }

  struct UpdateCounter: Action {
    let value: Int
  }

  struct Update<T: Sendable>: Action {
    var value: T
  }

  struct Labels: Equatable, Sendable {
    var count = 0
    var title = ""

    static let reducer = Reducer<Labels>()
      .on(Update<Int>.self) { state, update in state.count = update.value }
      .on(Update<String>.self) { state, update in state.title = update.value }
  }

  // MARK: Views

  final class CounterViewController: Sendable {
    let bag = SubscriptionBag()

    init(store: Store<AppState>) {
      // Subscribe to store changes
      store.observe(on: .mainActor) { state in
        print("counter: \(state.counter)")  // update UI
      }.store(in: bag)
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

  struct Denied: Error {}

  /// Waits until `condition` holds, for at most five seconds; returns whether it held.
  @MainActor static func eventually(_ condition: () -> Bool) async -> Bool {
    await eventuallyOnMainActor(condition)
  }
}

extension RxStateFlowGuide {
  @Suite("Migrating from RxStateFlow", .serialized)
  struct GuideTests {
    init() { _ = printed.take() }

    struct IncreaseCounterIfAllowed: Action {}

    func counterEffects(
      isAllowed: @escaping @Sendable () async throws -> Bool  // a network call, a database query, …
    ) -> Effects<AppState> {
      Effects<AppState>().on(IncreaseCounterIfAllowed.self) { _, context in
        guard try await isAllowed(), context.state.counter < 10 else { return }
        context.dispatch(CounterEvent.increase)
      }
    }

    @Test func theReducerHandlesEveryCounterEvent() {
      let store = Store(initialState: AppState(), reducer: AppState.reducer)
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.increase)
      #expect(store.state.counter == 2)
      store.dispatch(CounterEvent.decrease)
      #expect(store.state.counter == 1)
      store.dispatch(CounterEvent.reset)
      #expect(store.state.counter == 0)
      store.dispatch(UpdateCounter(value: 5))
      #expect(store.state.counter == 0, "AppState.reducer does not handle UpdateCounter")
    }

    @Test func eachCaseCanHaveAHandlerOfItsOwn() {
      let perCase = Reducer<AppState>()
        .on(CounterEvent.increase) { state in state.counter += 1 }
        .on(CounterEvent.decrease) { state in state.counter -= 1 }
        .on(CounterEvent.reset) { state in state.counter = 0 }

      let store = Store(initialState: AppState(), reducer: perCase)
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.decrease)
      #expect(store.state.counter == 1)
      store.dispatch(CounterEvent.reset)
      #expect(store.state.counter == 0)
    }

    @Test func theParentDelegatesToTheChildReducer() {
      let store = Store(
        initialState: Composition.AppState(), reducer: Composition.AppState.reducer)
      store.dispatch(Composition.ValueChanged(value: "hello"))
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.decrease)
      #expect(store.state == Composition.AppState(counter: 1, another: .init(value: "hello")))
    }

    @Test func eventsWithoutAndWithData() {
      let store = Store(
        initialState: AppState(),
        reducer: Reducer<AppState>()
          .on(Simple.UpdateCounter.self) { state, _ in state.counter += 1 }
          .on(UpdateCounter.self) { state, event in state.counter = event.value })
      store.dispatch(Simple.UpdateCounter())
      #expect(store.state.counter == 1)
      store.dispatch(UpdateCounter(value: 42))
      #expect(store.state.counter == 42)
    }

    @Test func genericEventsAreRoutedByTheirSpecializedType() {
      let store = Store(initialState: Labels(), reducer: Labels.reducer)
      store.dispatch(Update(value: 3))
      store.dispatch(Update(value: "Inbox"))
      store.dispatch(Update(value: 2.5))  // Update<Double>: no handler, nothing changes
      #expect(store.state == Labels(count: 3, title: "Inbox"))
    }

    @Test func theCommandIncreasesOnlyBelowTen() async {
      struct IncreaseCounter: Action {}

      let counterCommands = Effects<AppState>()
        .on(IncreaseCounter.self) { _, context in
          if context.state.counter < 10 {
            context.dispatch(CounterEvent.increase)
          }
        }
      let store = Store(
        initialState: AppState(), reducer: AppState.reducer, effects: counterCommands)
      // to dispatch a command
      store.dispatch(IncreaseCounter())
      await store.settle()
      #expect(store.state.counter == 1)
      for _ in 0..<20 {
        store.dispatch(IncreaseCounter())
        await store.settle()
      }
      #expect(store.state.counter == 10)
    }

    @Test func theEffectDispatchesWhenAllowed() async {
      let store = Store(
        initialState: AppState(), reducer: AppState.reducer,
        effects: counterEffects(isAllowed: { true }))
      store.dispatch(IncreaseCounterIfAllowed())
      await store.settle()  // the effect ran and its event was reduced
      #expect(store.state.counter == 1)

      let denying = Store(
        initialState: AppState(), reducer: AppState.reducer,
        effects: counterEffects(isAllowed: { false }))
      denying.dispatch(IncreaseCounterIfAllowed())
      await denying.settle()
      #expect(denying.state.counter == 0)

      let failing = Store(
        initialState: AppState(), reducer: AppState.reducer,
        effects: counterEffects(isAllowed: { throw Denied() }))
      failing.dispatch(IncreaseCounterIfAllowed())
      await failing.settle()
      #expect(failing.state.counter == 0)
      #expect(failing.errors.totalCount == 1)
      #expect(failing.errors.last?.error is Denied)
      #expect(failing.errors.last?.source == .effect(actionType: "IncreaseCounterIfAllowed"))
    }

    @Test func aStoreForTheWholeApp() {
      let store = Store(initialState: AppState(), reducer: AppState.reducer)
      #expect(store.state == AppState())
      store.dispatch(CounterEvent.increase)
      #expect(store.state.counter == 1)
    }

    @Test func aPersistedStoreIsDurableWhenDispatchReturns() throws {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        UUID().uuidString)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      do {
        let database = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
        let store = Store(
          initialState: AppState(), reducer: AppState.reducer,
          persistence: .sqlite("app", in: database).saving(.writeThrough))
        store.dispatch(CounterEvent.increase)  // durable when dispatch returns
        store.dispatch(CounterEvent.increase)

        // Without a flush: the record is already in the database.
        let record = try #require(try database.read("sluice.app"))
        #expect(try JSONDecoder().decode(AppState.self, from: record.data).counter == 2)
      }
      // A relaunch restores the state.
      let database = try SQLiteStorage(path: folder.appendingPathComponent("app.sqlite").path)
      let relaunched = Store(
        initialState: AppState(), reducer: AppState.reducer,
        persistence: .sqlite("app", in: database))
      #expect(relaunched.state.counter == 2)
    }

    @MainActor @Test func theViewFollowsTheStoreOnTheMainActor() async {
      let store = Store(initialState: AppState(), reducer: AppState.reducer)
      var controller: CounterViewController? = CounterViewController(store: store)
      store.dispatch(UpdateCounter(value: 7))  // not handled: no change, no call
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.increase)
      #expect(await eventually { printed.count >= 3 })
      #expect(printed.take() == ["counter: 0", "counter: 1", "counter: 2"])
      #expect(controller?.bag.count == 1)

      controller = nil  // the bag goes, and cancels the subscription
      #expect(store.observerCount == 0)
      store.dispatch(CounterEvent.increase)
      await Task.yield()
      #expect(printed.take().isEmpty)
    }

    @Test func theStatesAsAnAsyncSequence() async {
      let store = Store(initialState: AppState(), reducer: AppState.reducer)
      let states = store.values  // observes from now on: the current state first
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.increase)
      for await state in states {
        print("counter: \(state.counter)")
        if state.counter == 2 { break }
      }
      #expect(printed.take() == ["counter: 0", "counter: 1", "counter: 2"])
    }

    @Test func loggingMiddlewareRunsBeforeAndAfterTheReducer() {
      let logging = Middleware<AppState>(
        before: { event, state in
          switch event {
          case CounterEvent.increase:
            print("About to increase counter")
          default:
            break
          }
        },
        after: { event, old, new in
          switch event {
          case CounterEvent.increase:
            print("Counter increased from \(old.counter) to \(new.counter)")
          default:
            break
          }
        })
      let store = Store(initialState: AppState(), reducer: AppState.reducer, middleware: [logging])
      store.dispatch(CounterEvent.increase)
      store.dispatch(CounterEvent.reset)
      store.dispatch(CounterEvent.increase)
      #expect(
        printed.take() == [
          "About to increase counter", "Counter increased from 0 to 1",
          "About to increase counter", "Counter increased from 0 to 1",
        ])
    }
  }
}
