import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

// The Sluice snippets of Sources/Sluice/Sluice.docc/MigratingFromMiniSwift.md, compiled and run.
// Every snippet appears here line for line (SnippetTests checks it); the code around them sets
// up what the guide leaves out and asserts what the snippets do.

/// The Mini-Swift migration guide's types.
enum MiniSwiftGuide {
  // MARK: - Overview

  /// Stands in for a label, or for `print`, in these examples.
  final class Console: @unchecked Sendable {
    // @unchecked Sendable: `shown` is only touched under `lock`.
    private let lock = NSLock()
    private var shown: [String] = []

    var lines: [String] { lock.withLock { shown } }

    func show(_ line: String) { lock.withLock { shown.append(line) } }
  }

  // MARK: - Describe the state

  // Instead of MiniPromises
  struct MyCoolState: Equatable, Sendable {
    var cool: Loadable<Bool> = .idle
  }

  // Instead of MiniTasks
  struct MyCoolTaskState: Equatable, Sendable {
    var cool: Bool?
    var coolTask: TaskStatus = .idle
  }

  // MARK: - Declare actions

  struct RequestContactsAccess: Action {
    // As simple as this is.
  }

  struct RequestContactsAccessResult: CompletableAction {
    let result: Result<Bool, LoadError>
  }

  struct ActivateVoucherLoaded: CompletableAction {
    let result: Result<Done, LoadError>
  }

  struct Contact: Equatable, Sendable {
    var name: String
    var phone: String
  }

  struct RequestContactLoadedAction: KeyedCompletableAction {
    let results: [String: Result<Contact?, LoadError>]
  }

  struct ContactsState: Equatable, Sendable {
    var access: Loadable<Bool> = .idle
    var voucher: TaskStatus = .idle
    var contacts: [String: Loadable<Contact?>] = [:]
  }

  struct TestAction: Action {}

  // MARK: - Test helpers (not in the guide)

  struct Offline: Error, Equatable {}

  /// Stands in for a service: `counter(_:)` answers with the number it was given, at once or,
  /// when `held`, once the test calls `release()`; it throws `failure` when one is set.
  final class CounterAPI: DependencyKey, @unchecked Sendable {
    // @unchecked Sendable: every stored property is only touched under `lock`.
    private let lock = NSLock()
    private var held: Bool
    private var failure: (any Error)?
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var received: [Int] = []

    init(held: Bool = false, failure: (any Error)? = nil) {
      self.held = held
      self.failure = failure
    }

    /// A service that answers at once; the guide's stores are given their own.
    static let defaultValue = CounterAPI()

    var requests: [Int] { lock.withLock { received } }

    func counter(_ number: Int) async throws -> Int {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = lock.withLock { () -> Bool in
          received.append(number)
          if held { waiting.append(continuation) }
          return !held
        }
        if now { continuation.resume() }
      }
      if let failure = lock.withLock({ failure }) { throw failure }
      return number
    }

    func release() {
      let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
        held = false
        defer { waiting.removeAll() }
        return waiting
      }
      for continuation in resumed { continuation.resume() }
    }
  }

  /// Records values from any thread, in order.
  final class Recorder<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Value] = []

    var values: [Value] { lock.withLock { stored } }

    func append(_ value: Value) { lock.withLock { stored.append(value) } }
  }

  /// Waits until `condition` holds, for at most 20 seconds; returns whether it held.
  static func eventually(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + hangGuard
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      await Task.yield()
    }
    return true
  }
}

// MARK: - A store and its reducers

extension MiniSwiftGuide {
  enum ReducerGroupExample {
    struct OneTestAction: Action {
      let counter: Int
      let payload: String?
      let task: TaskStatus
    }

    struct TestState: Equatable, Sendable {
      var testPromise: Loadable<Int> = .idle
      var data: String?
      var dataTask: TaskStatus = .idle
    }

    @Suite("Migrating from Mini-Swift: a store and its reducers") struct Tests {
      @Test func twoHandlersOfOneActionRunInOrderAndObserversLiveInABag() {
        let console = Console()
        let dispatcher = Dispatcher()

        let reducer = Reducer<TestState>()
          // Using Loadable (Promises)
          .on(OneTestAction.self) { state, action in
            state.testPromise = .loaded(action.counter)
          }
          // Using TaskStatus (Tasks)
          .on(OneTestAction.self) { state, action in
            state.data = action.payload
            state.dataTask = action.task
          }

        let bag = SubscriptionBag()
        let store = Store(initialState: TestState(), dispatcher: dispatcher, reducer: reducer)
        store.observe { state in console.show("\(state.testPromise)") }
          .store(in: bag)

        dispatcher.dispatch(OneTestAction(counter: 3, payload: "data", task: .succeeded()))

        #expect(console.lines == ["idle", "loaded(3)"])
        #expect(
          store.state
            == TestState(testPromise: .loaded(3), data: "data", dataTask: .succeeded()))
        #expect(bag.count == 1)
        bag.cancelAll()
        dispatcher.dispatch(OneTestAction(counter: 4, payload: nil, task: .idle))
        #expect(console.lines == ["idle", "loaded(3)"])
        #expect(store.state.testPromise == .loaded(4))
      }
    }
  }
}

// MARK: - Advanced usage with Promises

extension MiniSwiftGuide {
  enum Promises {
    struct TestState: Equatable, Sendable {
      var counter: Loadable<Int> = .idle
    }

    // This is the request
    struct SetCounterAction: Action {
      let counter: Int
    }

    // This is the response
    struct SetCounterActionLoaded: CompletableAction {
      let result: Result<Int, LoadError>
    }

    /// The store of the guide, with `api` for the service.
    static func makeStore(_ api: CounterAPI) -> Store<TestState> {
      let effects = Effects<TestState>()
        .load(
          SetCounterAction.self, as: SetCounterActionLoaded.self, policy: .dropWhileRunning
        ) { action, context in
          try await context.dependencies.counterAPI.counter(action.counter)
        }

      let reducer = Reducer<TestState>()
        .on(SetCounterAction.self, start: \.counter)
        .on(SetCounterActionLoaded.self, complete: \.counter)

      let store = Store(initialState: TestState(), reducer: reducer, effects: effects) {
        $0.counterAPI = api
      }
      return store
    }

    @Suite("Migrating from Mini-Swift: advanced usage with promises") struct Tests {
      @Test func theRequestStartsTheLoadAndTheResponseFillsIt() async {
        let api = CounterAPI()
        let store = makeStore(api)
        let states = Recorder<Loadable<Int>>()
        let subscription = store.observe { states.append($0.counter) }

        store.dispatch(SetCounterAction(counter: 5))  // counter: loading
        await store.settle()  // the effect ran, and its response was reduced

        #expect(states.values == [.idle, .loading(), .loaded(5)])
        #expect(store.state.counter.value == 5)
        #expect(api.requests == [5])
        #expect(store.errors.recent.isEmpty)
        subscription.cancel()
      }

      @Test func aRequestWhileLoadingIsIgnored() async {
        let api = CounterAPI(held: true)
        let store = makeStore(api)

        store.dispatch(SetCounterAction(counter: 1))
        store.dispatch(SetCounterAction(counter: 2))
        #expect(store.state.counter.isLoading)
        #expect(await MiniSwiftGuide.eventually { api.requests == [1] })
        api.release()
        await store.settle()

        #expect(store.state.counter == .loaded(1))
        #expect(api.requests == [1])
      }

      @Test func aFailureIsAValueInTheStateAndAnErrorEvent() async throws {
        let api = CounterAPI(failure: Offline())
        let store = makeStore(api)

        store.dispatch(SetCounterAction(counter: 5))
        await store.settle()

        #expect(store.state.counter == .failed(Offline()))
        let event = try #require(store.errors.last)
        #expect(event.error as? Offline == Offline())
        #expect(event.action is SetCounterActionLoaded)
      }

      @Test func theEffectEndsWithItsStore() async {
        let api = CounterAPI(held: true)
        var store: Store<TestState>? = makeStore(api)
        let dispatcher = store?.dispatcher
        store?.dispatch(SetCounterAction(counter: 1))
        #expect(await MiniSwiftGuide.eventually { api.requests == [1] })
        store = nil
        api.release()
        await dispatcher?.settle()
        #expect(dispatcher?.effectsInFlight == 0)
      }
    }
  }
}

// MARK: - Advanced usage with Tasks

extension MiniSwiftGuide {
  enum Tasks {
    struct TestState: Equatable, Sendable {
      var counter: Int?
      var counterTask: TaskStatus = .idle
    }

    // This is the request
    struct SetCounterAction: Action {
      let counter: Int
    }

    // This is the response
    struct SetCounterActionLoaded: Action {
      let counter: Int?
      let counterTask: TaskStatus
    }

    /// The store of the guide, with `api` for the service.
    static func makeStore(_ api: CounterAPI) -> Store<TestState> {
      let effects = Effects<TestState>()
        .on(SetCounterAction.self, policy: .dropWhileRunning) { action, context in
          do {
            let counter = try await context.dependencies.counterAPI.counter(action.counter)
            context.dispatch(SetCounterActionLoaded(counter: counter, counterTask: .succeeded()))
          } catch {
            context.dispatch(SetCounterActionLoaded(counter: nil, counterTask: .failed(error)))
          }
        }

      let reducer = Reducer<TestState>()
        .on(SetCounterAction.self) { state, _ in
          guard !state.counterTask.isLoading else { return }
          state = TestState(counterTask: .loading())
        }
        .on(SetCounterActionLoaded.self) { state, action in
          guard state.counterTask.isLoading else { return }
          state = TestState(counter: action.counter, counterTask: action.counterTask)
        }

      let store = Store(initialState: TestState(), reducer: reducer, effects: effects) {
        $0.counterAPI = api
      }
      return store
    }

    @Suite("Migrating from Mini-Swift: advanced usage with tasks") struct Tests {
      @Test func theRequestRunsTheTaskAndTheResponseCarriesItsOutcome() async {
        let api = CounterAPI()
        let store = makeStore(api)
        let states = Recorder<TestState>()
        let subscription = store.observe { states.append($0) }

        store.dispatch(SetCounterAction(counter: 5))  // counter: loading
        await store.settle()  // the effect ran, and its response was reduced

        #expect(
          states.values == [
            TestState(),
            TestState(counterTask: .loading()),
            TestState(counter: 5, counterTask: .succeeded()),
          ])
        subscription.cancel()
      }

      @Test func aFailureEndsTheTaskAsFailed() async {
        let api = CounterAPI(failure: Offline())
        let store = makeStore(api)

        store.dispatch(SetCounterAction(counter: 5))
        await store.settle()

        #expect(store.state == TestState(counter: nil, counterTask: .failed(Offline())))
      }

      @Test func requestsWhileRunningAndUnaskedResponsesAreIgnored() async {
        let api = CounterAPI(held: true)
        let store = makeStore(api)

        store.dispatch(SetCounterActionLoaded(counter: 99, counterTask: .succeeded()))
        #expect(store.state == TestState())
        store.dispatch(SetCounterAction(counter: 1))
        store.dispatch(SetCounterAction(counter: 2))
        #expect(await MiniSwiftGuide.eventually { api.requests == [1] })
        api.release()
        await store.settle()

        #expect(store.state == TestState(counter: 1, counterTask: .succeeded()))
        #expect(api.requests == [1])
      }
    }
  }
}

// MARK: - Tests of the other sections

extension MiniSwiftGuide {
  @Suite("Migrating from Mini-Swift: every Sluice snippet runs") struct Tests {
    @Test func theManifestNamesWhatThisPackageDeclares() throws {
      let manifest = """
        // swift-tools-version: 6.2

        import PackageDescription

        let package = Package(
          name: "MyApp",
          platforms: [.macOS(.v15), .iOS(.v18)],
          dependencies: [
            .package(path: "../Sluice")
          ],
          targets: [
            .executableTarget(
              name: "MyApp",
              dependencies: [.product(name: "Sluice", package: "Sluice")])
          ]
        )
        """
      let real = try String(
        contentsOf: DocumentationFiles.root.appendingPathComponent("Package.swift"),
        encoding: .utf8)
      // The tools version and the platforms are the package's own minimums.
      let toolsLine = try #require(manifest.split(separator: "\n").first)
      #expect(real.hasPrefix(String(toolsLine)))
      for platform in [".macOS(.v15)", ".iOS(.v18)"] {
        #expect(manifest.contains(platform))
        #expect(real.contains(platform))
      }
      // Every product named is a library of the package.
      let named = manifest.matches(of: /\.product\(name: "(\w+)", package: "Sluice"\)/)
        .map { String($0.output.1) }
      #expect(named == ["Sluice"])
      for product in named { #expect(real.contains(".library(name: \"\(product)\"")) }
    }

    @Test func theTestAndLogToolsRecordActions() {
      let console = Console()
      let store = Store(
        initialState: ContactsState(),
        reducer: Reducer<ContactsState>().on(RequestContactsAccess.self, start: \.access))

      let recorder = ActionRecorder(recording: store)
      let log = store.onAction { action, _ in console.show("\(action)") }
      store.dispatch(RequestContactsAccess())

      #expect(!recorder.actions(of: RequestContactsAccess.self).isEmpty)
      #expect(recorder.actions(of: RequestContactsAccess.self).count == 1)
      #expect(console.lines == ["RequestContactsAccess()"])
      #expect(store.state.access.isLoading)
      log.cancel()
    }

    @Test func theStatesStartIdle() {
      #expect(MyCoolState().cool == .idle)
      #expect(MyCoolTaskState() == MyCoolTaskState(cool: nil, coolTask: .idle))
      var state = MyCoolTaskState()
      state.coolTask.start()
      #expect(state.coolTask.isLoading)
      state.cool = true
      state.coolTask.succeed()
      #expect(state == MyCoolTaskState(cool: true, coolTask: .succeeded()))
    }

    @Test func metadataHoldsTypedExtraFacts() {
      let before = Date()

      var promise: Loadable<Bool> = .idle
      promise.metadata[Date.self] = Date()
      // Later on...
      let date: Date? = promise.metadata[Date.self]

      var task: TaskStatus = .idle
      task.metadata[Date.self] = Date()
      // Later on...
      let taskDate: Date? = task.metadata[Date.self]

      #expect(date.map { $0 >= before } == true)
      #expect(taskDate.map { $0 >= before } == true)
      // Metadata is part of the value: setting it is a change the store sees.
      #expect(promise != .idle)
      #expect(promise.status == .idle)
      #expect(promise.startedAt == nil)
      promise.start()
      #expect(promise.startedAt != nil)
      #expect(promise.metadata[Date.self] == date)
    }

    @Test func theResponsesCompleteTheirLoads() throws {
      let reducer = Reducer<ContactsState>()
        .on(RequestContactsAccess.self, start: \.access)
        .on(RequestContactsAccessResult.self, complete: \.access)
        .on(ActivateVoucherLoaded.self, complete: \.voucher)
        .on(RequestContactLoadedAction.self, complete: \.contacts)

      let store = Store(initialState: ContactsState(), reducer: reducer)
      store.dispatch(RequestContactsAccess())
      #expect(store.state.access.isLoading)
      store.dispatch(RequestContactsAccessResult(result: .success(true)))
      store.dispatch(ActivateVoucherLoaded(result: .failure(LoadError(Offline()))))
      let ada = Contact(name: "Ada", phone: "555-0101")
      store.dispatch(
        RequestContactLoadedAction(results: [
          "555-0101": .success(ada), "555-0102": .success(nil),
          "555-0103": .failure(LoadError(Offline())),
        ]))

      #expect(store.state.access == .loaded(true))
      #expect(store.state.voucher == .failed(Offline()))
      #expect(store.state.contacts["555-0101"] == .loaded(ada))
      #expect(store.state.contacts["555-0102"] == .loaded(nil))
      #expect(store.state.contacts["555-0103"]?.error != nil)
      #expect(store.state.contacts.loadedValues() == ["555-0101": ada, "555-0102": nil])
      // A failed completable response reports the error it carries; a keyed response with
      // failed keys reports one error naming them.
      #expect(store.errors.totalCount == 2)
      #expect(store.errors.recent.first?.action is ActivateVoucherLoaded)
      let keyed = try #require(store.errors.last?.error)
      #expect("\(keyed)" == "1 of the keyed loads failed: 555-0103")
      #expect(store.errors.last?.action is RequestContactLoadedAction)
      let done: ActivateVoucherLoaded.Payload = Done()
      #expect(done == Done())
    }

    @Test func dispatchingIsTheSameCall() {
      let dispatcher = Dispatcher()
      let store = Store(
        initialState: 0, dispatcher: dispatcher,
        reducer: Reducer<Int>().on(TestAction.self) { count, _ in count += 1 })

      let action = TestAction()
      dispatcher.dispatch(action, mode: .sync)

      #expect(store.state == 1)
      dispatcher.dispatch(action, mode: .async)
      store.dispatch(action)  // queued behind the async one: both are reduced when it returns
      #expect(store.state == 3)
    }
  }
}

extension Dependencies {
  /// The guide's service.
  var counterAPI: MiniSwiftGuide.CounterAPI {
    get { self[MiniSwiftGuide.CounterAPI.self] }
    set { self[MiniSwiftGuide.CounterAPI.self] = newValue }
  }
}
