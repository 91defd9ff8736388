import Foundation
import Sluice
import SluiceTestSupport
import Testing

// The Sluice snippets of Sources/Sluice/Sluice.docc/MigratingFromFlask.md, compiled and run.
// Every snippet appears here line for line (SnippetTests checks it); the code around them sets
// up what the guide leaves out and asserts what the snippets do.

/// The Flask migration guide's types.
enum FlaskGuide {
  // MARK: - Overview

  /// Stands in for a label, or for `print`, in these examples.
  final class Console: @unchecked Sendable {
    // @unchecked Sendable: `shown` is only touched under `lock`.
    private let lock = NSLock()
    private var shown: [String] = []

    var lines: [String] { lock.withLock { shown } }

    func show(_ line: String) { lock.withLock { shown.append(line) } }
  }

  /// An object that owns reactions, in place of a view controller.
  final class Screen: Sendable {
    let console = Console()
  }

  // MARK: - Declare a state

  struct AppState: Equatable, Codable, Sendable {
    var counter = 0
    var text = ""
  }

  // MARK: - Define a reactive substance

  enum Mixers {
    struct Login: Action { var username = "" }
  }

  enum App {
    static let reducer = Reducer<AppState>()
      .on(Mixers.Login.self) { state, _ in state.counter += 1 }
  }

  // MARK: - Share substances, Fluxor style

  enum EnvMixers {
    struct Login: Action { let username: String }
    struct Logout: Action {}
  }

  struct AppReactive: StoreDefinition, Equatable {
    var counter = 0
    var title = ""

    static let initialState = AppReactive()
    static let reducer = Reducer<AppReactive>()
      .on(EnvMixers.Login.self) { state, _ in state.title = "signed" }
      .on(EnvMixers.Logout.self) { state, _ in state.title = "" }
  }

  // MARK: - Run one mixer alone, release the lock later

  struct AsyncAction: Action {}

  struct Job: Equatable, Sendable {
    var asyncResult = ""
    var counter = 0

    static let reducer = Reducer<Job>()
      .on(AsyncAction.self) { state, _ in state.asyncResult = "started" }
      .on(EnvMixers.Login.self) { state, _ in state.counter += 1 }
  }

  // MARK: - Observe nested structures

  final class Presenter: Sendable {}

  struct NestedTestStruct: Codable, Equatable, Sendable {
    var foo = "bar"
    var object = Ref<Presenter>.strong(Presenter())
  }

  struct TestStruct: Codable, Equatable, Sendable {
    var counter = 10
    var nest = NestedTestStruct()
  }

  struct NestState: Codable, Equatable, Sendable {
    var info = TestStruct()
  }

  // MARK: - Keep object references in the state

  struct MyState: Codable, Equatable, Sendable {
    var object = Ref<Presenter>.strong(Presenter())
  }

  // MARK: - Observe the keys of a dictionary

  struct DictState: Codable, Equatable, Sendable {
    var info: StateValue?
  }

  // MARK: - Keep internal properties out of reactions

  struct InternalState: Codable, Equatable, Sendable {
    var counter = 0
    var _internal = "`_` use this prefix for internal vars "
  }
}

// MARK: - View controllers

extension FlaskGuide {
  /// React in a view controller.
  enum Reactor {
    final class ViewController: Sendable {
      let console = Console()
      let substance: Store<AppState>
      let appReactive: Store<AppState>

      init(substance: Store<AppState>, appReactive: Store<AppState>) {
        self.substance = substance
        self.appReactive = appReactive
      }

      func flaskReactions(_ reaction: MultiReaction) {
        let changed = reaction.at(substance) ?? reaction.at(appReactive)
        changed?.on(\.counter) { change in console.show("counter = \(change.new)") }
      }

      func viewDidLoad() {
        let stores: [AnyStore] = [substance, appReactive]
        substance.dispatcher.react(to: stores, owner: self) { controller, reaction in
          controller.flaskReactions(reaction)
        }
      }
    }

    @Suite("Migrating from Flask: a view controller reacts") struct Tests {
      @Test func aViewControllerReactsToSeveralSubstances() {
        let dispatcher = Dispatcher()
        let substance = Store(initialState: AppState(), dispatcher: dispatcher)
        let appReactive = Store(
          initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
        let controller = ViewController(substance: substance, appReactive: appReactive)
        controller.viewDidLoad()

        dispatcher.dispatch(Mixers.Login())
        dispatcher.transaction { tx in try tx.update(substance) { $0.counter = 7 } }
        dispatcher.transaction { tx in try tx.update(substance) { $0.text = "no counter" } }

        #expect(controller.console.lines == ["counter = 1", "counter = 7"])
      }
    }
  }

  /// The Redux-style example.
  enum Redux {
    final class ViewController: Sendable {
      let console = Console()
      let substance = Store(initialState: AppState())

      func flaskReactions(_ reaction: Reaction<AppState>) {
        reaction.on(\.counter) { change in console.show("counter = \(change.new)") }
        reaction.on(\.text) { change in console.show("text = \(change.new)") }
      }

      func viewDidLoad() {
        substance.react(owner: self) { controller, reaction in
          controller.flaskReactions(reaction)
        }
        produceTestReaction()
      }

      func produceTestReaction() {
        substance.dispatcher.transaction { [substance] tx in
          try tx.update(substance) { $0.counter = 10 }
          try tx.update(substance) { $0.text = "changed!" }
        }
      }
    }

    @Suite("Migrating from Flask: Redux style") struct Tests {
      @Test func reduxStyleMixesTwiceAndReactsOnce() {
        let controller = ViewController()
        let calls = Counter()
        let subscription = controller.substance.react { _ in calls.increment() }
        let callsAtAttach = calls.value

        controller.viewDidLoad()

        #expect(controller.console.lines == ["counter = 10", "text = changed!"])
        #expect(controller.substance.state == AppState(counter: 10, text: "changed!"))
        #expect(calls.value == callsAtAttach + 1)
        subscription.cancel()
      }
    }
  }

  /// The Fluxor-style example.
  enum Fluxor {
    final class ViewController: Sendable {
      let console = Console()
      let dispatcher: Dispatcher

      init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
      }

      func flaskReactions(_ reaction: Reaction<AppReactive>) {
        reaction.on(\.title) { change in console.show("global title = \(change.new)") }
      }

      func viewDidLoad() {
        dispatcher.store(AppReactive.self)?.react(owner: self) { controller, reaction in
          controller.flaskReactions(reaction)
        }
        produceTestReaction()
      }

      func produceTestReaction() {
        dispatcher.dispatch(EnvMixers.Login(username: "foo"))
      }
    }

    @Suite("Migrating from Flask: Fluxor style") struct Tests {
      @Test func fluxorStyleASharedSubstanceReactsToAGlobalMixer() {
        let dispatcher = Dispatcher()
        dispatcher.register(AppReactive.self)
        let controller = ViewController(dispatcher: dispatcher)
        controller.viewDidLoad()

        #expect(controller.console.lines == ["global title = signed"])
        #expect(dispatcher.store(AppReactive.self)?.state.title == "signed")
        dispatcher.dispatch(EnvMixers.Logout())
        #expect(controller.console.lines == ["global title = signed", "global title = "])
      }
    }
  }
}

// MARK: - Test helpers (not in the guide)

extension FlaskGuide {
  /// Stands in for slow asynchronous work: `upload` suspends until the test calls `finish()`.
  final class Uploader: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only touched under `lock`.
    private let lock = NSLock()
    private var finished = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var received: [String] = []

    var uploads: [String] { lock.withLock { received } }

    func upload(_ text: String) async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = lock.withLock { () -> Bool in
          received.append(text)
          if !finished { waiting.append(continuation) }
          return finished
        }
        if now { continuation.resume() }
      }
    }

    func finish() {
      let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
        finished = true
        defer { waiting.removeAll() }
        return waiting
      }
      for continuation in resumed { continuation.resume() }
    }
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

  /// A new empty folder.
  static func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("flask-guide-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Counts calls from any thread.
  final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
  }
}

// MARK: - Tests

extension FlaskGuide {
  @Suite("Migrating from Flask: every Sluice snippet runs") struct Tests {
    @Test func theConsoleKeepsLinesInOrder() {
      let console = Console()
      console.show("a")
      console.show("b")
      #expect(console.lines == ["a", "b"])
    }

    @Test func theHighLevelAPIAttachesDispatchesAndDetaches() {
      let screen = Screen()
      let dispatcher = Dispatcher()
      let feed = Store(initialState: AppState(), dispatcher: dispatcher)
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      let reactor = app.react(owner: screen) { screen, reaction in
        reaction.on(\.counter) { change in screen.console.show("counter = \(change.new)") }
      }
      dispatcher.dispatch(Mixers.Login(username: "foo"))
      reactor.cancel()

      #expect(screen.console.lines == ["counter = 1"])
      #expect(app.state.counter == 1)
      #expect(feed.state == AppState())
      // Detached: a later mixer changes the store, and the screen hears nothing.
      dispatcher.dispatch(Mixers.Login())
      #expect(app.state.counter == 2)
      #expect(screen.console.lines == ["counter = 1"])
    }

    @Test func aPlainSubstanceIsAStoreWithoutReducer() {
      let feed = Store(initialState: AppState())

      #expect(feed.state == AppState())
      feed.dispatch(Mixers.Login())  // nobody handles it: nothing changes
      #expect(feed.state.counter == 0)
      feed.dispatcher.transaction { tx in try tx.update(feed) { $0.text = "mixed" } }
      #expect(feed.state.text == "mixed")
    }

    @Test func aReactiveSubstanceReducesItsMixer() {
      let dispatcher = Dispatcher()
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      dispatcher.dispatch(Mixers.Login())

      #expect(app.state.counter == 1)
    }

    @Test func aGlobalMixerReachesEveryStoreThatHandlesIt() {
      let dispatcher = Dispatcher()
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      let other = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      let unrelated = Store(initialState: AppState(), dispatcher: dispatcher)
      let seen = Console()
      let tap = app.onAction { action, _ in
        seen.show((action as? Mixers.Login)?.username ?? "?")
      }

      dispatcher.dispatch(Mixers.Login(username: "foo"))

      // Sync dispatch: every store reduced it when `dispatch` returned.
      #expect(app.state.counter == 1)
      #expect(other.state.counter == 1)
      #expect(unrelated.state.counter == 0)
      #expect(seen.lines == ["foo"])
      tap.cancel()
    }

    @Test func aFlaskMixerIsATransactionThatNotifiesOnce() {
      let dispatcher = Dispatcher()
      let substance = Store(initialState: AppState(), dispatcher: dispatcher)
      let calls = Counter()
      let changes = Console()
      let subscription = substance.observe(from: .nextChange) { state in
        calls.increment()
        changes.show("\(state.counter) \(state.text)")
      }

      dispatcher.transaction { tx in
        try tx.update(substance) { $0.counter = 10 }
        try tx.update(substance) { $0.text = "text" }
      }

      #expect(substance.state == AppState(counter: 10, text: "text"))
      #expect(calls.value == 1)
      #expect(changes.lines == ["10 text"])
      subscription.cancel()
    }

    @Test func aSavepointIsATransaction() {
      let dispatcher = Dispatcher()
      let substance = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      dispatcher.transaction { tx in  // captureState()
        tx.dispatch(Mixers.Login(username: "foo"))
        if tx.state(of: substance).counter > 1 { try tx.abort() }  // rollbackState()
      }  // commitState()
      #expect(substance.state.counter == 1)
      let changes = Console()
      let subscription = substance.observe(from: .nextChange) { changes.show("\($0.counter)") }
      dispatcher.transaction { tx in  // captureState()
        tx.dispatch(Mixers.Login(username: "foo"))
        if tx.state(of: substance).counter > 1 { try tx.abort() }  // rollbackState()
      }  // commitState()
      #expect(substance.state.counter == 1, "the second login was rolled back")
      #expect(changes.lines.isEmpty, "nothing between the capture and the rollback was published")

      let saved = substance.state  // captureState()
      substance.dispatch(Mixers.Login())
      dispatcher.transaction { tx in try tx.update(substance) { $0 = saved } }  // rollbackState()
      #expect(substance.state.counter == 1)
      #expect(changes.lines == ["2", "1"])
      subscription.cancel()
    }

    @Test func aReactorBoundToAnOwnerEndsWithIt() {
      let substance = Store(initialState: AppState(), reducer: App.reducer)
      var owner: Screen? = Screen()
      let console = owner?.console
      if let owner {
        substance.react(owner: owner) { owner, reaction in
          reaction.on(\.counter) { change in
            owner.console.show("counter \(change.old) → \(change.new)")
          }
        }
      }

      // Attaching runs the handler once to learn its queries, without calling `on` bodies.
      #expect(console?.lines == [])
      substance.dispatch(Mixers.Login())
      #expect(console?.lines == ["counter 0 → 1"])
      #expect(substance.observerCount == 1)
      owner = nil
      substance.dispatch(Mixers.Login())
      #expect(substance.observerCount == 0)
      #expect(console?.lines == ["counter 0 → 1"])
    }

    @Test func aChainReactionOverTwoSubstancesCommitsOrAbortsAsOne() {
      let dispatcher = Dispatcher()
      let substanceA = Store(initialState: AppState(), dispatcher: dispatcher)
      let substanceB = Store(initialState: AppState(), dispatcher: dispatcher)
      let heard = Console()
      let reactions = dispatcher.react(to: [substanceA, substanceB]) { reaction in
        reaction.at(substanceA)?.on(\.counter) { heard.show("A.counter \($0.old)→\($0.new)") }
        reaction.at(substanceB)?.on(\.text) { heard.show("B.text \($0.new)") }
      }

      dispatcher.transaction { tx in
        try tx.update(substanceA) { $0.counter = 10 }
        try tx.update(substanceB) { $0.text = "text" }
      }

      #expect(substanceA.state == AppState(counter: 10, text: ""))
      #expect(substanceB.state == AppState(counter: 0, text: "text"))
      #expect(heard.lines == ["A.counter 0→10", "B.text text"])

      let outcome = dispatcher.transaction { tx in
        try tx.update(substanceA) { $0.counter += 1 }
        guard tx.state(of: substanceA).counter <= 10 else { try tx.abort() }
        try tx.update(substanceB) { $0.text = "counted" }
      }

      guard case .aborted = outcome else {
        Issue.record("the transaction was not aborted: \(outcome)")
        return
      }
      #expect(substanceA.state.counter == 10)
      #expect(substanceB.state.text == "text")
      #expect(heard.lines == ["A.counter 0→10", "B.text text"])
      // An aborted transaction never blocks the next one (an unresolved ChainReaction did).
      dispatcher.transaction { tx in try tx.update(substanceB) { $0.text = "next" } }
      #expect(substanceB.state.text == "next")
      reactions.cancel()
    }

    @Test func aLockQueuesMixersUntilItIsReleased() {
      let dispatcher = Dispatcher()
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)

      let console = Console()

      let lock = dispatcher.pause()
      // perform operations while the flux is paused
      dispatcher.dispatch(Mixers.Login())  // queued: returns at once
      console.show("paused: counter = \(app.state.counter)")
      lock.release()  // Login is reduced now
      console.show("released: counter = \(app.state.counter)")

      #expect(console.lines == ["paused: counter = 0", "released: counter = 1"])
      #expect(!dispatcher.isPaused)
      lock.release()  // idempotent
      #expect(!dispatcher.isPaused)
    }

    @Test func anExclusiveMixerHandsItsLockToTheReaction() async {
      let dispatcher = Dispatcher()
      let uploader = Uploader()

      let job = Store(initialState: Job(), dispatcher: dispatcher, reducer: Job.reducer)
      let subscription = job.react { reaction in
        reaction.on(\.asyncResult) { change in
          // pass the lock to an async task; release it when the work is done
          guard let lock = reaction.lock else { return }
          Task {
            await uploader.upload(change.new)
            lock.release()
          }
        }
      }
      dispatcher.exclusive(AsyncAction())
      dispatcher.dispatch(EnvMixers.Login(username: "foo"))  // queued until the release

      #expect(job.state.asyncResult == "started")
      #expect(job.state.counter == 0)
      #expect(dispatcher.isPaused)
      #expect(await FlaskGuide.eventually { uploader.uploads == ["started"] })
      #expect(dispatcher.isPaused)
      #expect(job.state.counter == 0)
      uploader.finish()
      #expect(await FlaskGuide.eventually { !dispatcher.isPaused })
      #expect(await FlaskGuide.eventually { job.state.counter == 1 })
      subscription.cancel()
    }

    @Test func anExclusiveMixerThatChangesNothingReleasesItself() {
      let dispatcher = Dispatcher()
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      let lock = dispatcher.exclusive(AsyncAction())  // AppState does not handle it
      #expect(lock.isReleased)
      dispatcher.dispatch(Mixers.Login())
      #expect(app.state.counter == 1)
    }

    @Test func nestedStructuresAreObservedByDottedPathsAndSurviveTheArchive() async throws {
      let console = Console()

      let storage = InMemoryStorage()
      let substance = Store(
        initialState: NestState(), persistence: .inMemory("substanceTest", storage))
      let subscription = substance.react { reaction in
        reaction.on("info") { _ in console.show("info") }
        reaction.on("info.counter") { change in console.show("info.counter = \(change.new)") }
        reaction.on("info.nest.foo") { change in console.show("info.nest.foo = \(change.new)") }
      }

      await substance.dispatcher.transaction { tx in
        try tx.update(substance) { state in
          state.info.counter = 90
          state.info.nest.foo = "mutated"
        }
      }
      try await substance.persistence?.flush()

      let archived = Store(
        initialState: NestState(), persistence: .inMemory("substanceTest", storage))
      #expect(archived.state.info.nest.foo == "mutated")

      #expect(console.lines == ["info", "info.counter = 90", "info.nest.foo = \"mutated\""])
      #expect(archived.state.info.counter == 90)
      // The object reference is never archived: it comes back empty.
      #expect(substance.state.info.nest.object.object != nil)
      #expect(archived.state.info.nest.object.isEmpty)
      #expect(storage.keys == ["sluice.substanceTest"])
      subscription.cancel()
    }

    @Test func anObjectReferenceIsComparedByIdentity() throws {
      let console = Console()

      let store = Store(initialState: MyState())
      let subscription = store.observe(\.object, from: .nextChange) { change in
        console.show("object replaced: \(change.old != change.new)")
      }
      let next = Presenter()
      store.dispatcher.transaction { tx in try tx.update(store) { $0.object = .weak(next) } }

      #expect(console.lines == ["object replaced: true"])
      #expect(store.state.object.object === next)
      // The same object again, strongly held this time: the same reference, no change.
      store.dispatcher.transaction { tx in try tx.update(store) { $0.object = .strong(next) } }
      #expect(console.lines == ["object replaced: true"])
      // The state stays Codable; the object is left out.
      let json = try JSONEncoder().encode(store.state)
      #expect(String(decoding: json, as: UTF8.self) == "{}")
      subscription.cancel()
    }

    @Test func aDictionaryAssignedLaterIsObservedByANestedKey() {
      let console = Console()
      let log = IssueReporter.collecting()
      let dispatcher = Dispatcher(reporter: log)
      let substance = Store(initialState: DictState(), dispatcher: dispatcher)
      let subscription = substance.react { reaction in
        reaction.on("info.nest.data") { change in
          console.show(change.new(as: String.self) ?? "-")
        }
      }

      dispatcher.transaction { tx in
        try tx.update(substance) { state in
          let data: StateValue = [
            "foo": "bar",
            "nest": [
              "data": "some"
            ],
          ]
          state.info = data
        }
      }

      #expect(console.lines == ["some"])
      #expect(substance.state.info?[path: "nest.data"] == "some")
      #expect(log.issues.isEmpty)
      subscription.cancel()
    }

    @Test func anUnknownDottedPathIsReportedNotACrash() {
      let log = IssueReporter.collecting()
      let dispatcher = Dispatcher(reporter: log)
      let substance = Store(initialState: AppState(), dispatcher: dispatcher)
      let subscription = substance.react { reaction in
        reaction.on("countr") { _ in Issue.record("an unknown path fired") }
      }
      dispatcher.transaction { tx in try tx.update(substance) { $0.counter = 1 } }
      #expect(log.issues.map(\.kind) == [.unknownPath])
      subscription.cancel()
    }

    @Test func archivingIsAPersistenceKey() async throws {
      let folder = try FlaskGuide.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      do {
        let substance = Store(
          initialState: AppState(), reducer: App.reducer,
          persistence: .jsonFile("uniqueName", in: folder))

        substance.dispatch(Mixers.Login())
        try await substance.persistence?.flush()
        #expect(substance.persistence?.key == "sluice.uniqueName")
      }
      let again = Store(
        initialState: AppState(), reducer: App.reducer,
        persistence: .jsonFile("uniqueName", in: folder))
      #expect(again.state.counter == 1)
    }

    @Test func theArchiveOverridesAreKeyModifiers() async throws {
      let folder = try FlaskGuide.temporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      do {
        let key = PersistenceKey<AppState>.jsonFile("uniqueName", in: folder)
          .namespace("Fx.1")  // archiveKeySpace(), archiveKey()
          .saving(.coalesced(debounce: .seconds(2), maxDelay: .seconds(10)))  // archiveDelay()
        let substance = Store(initialState: AppState(), reducer: App.reducer, persistence: key)
        substance.persistence?.isEnabled = false  // archiveDisabled(), shouldArchive

        #expect(substance.persistence?.key == "Fx.1.uniqueName")
        substance.dispatch(Mixers.Login())
        try await substance.persistence?.flush()
        #expect(substance.persistence?.writeCount == 0)

        try await substance.persistence?.saveNow()
        #expect(substance.persistence?.writeCount == 1)
      }
      let again = Store(
        initialState: AppState(), reducer: App.reducer,
        persistence: .jsonFile("uniqueName", in: folder).namespace("Fx.1"))
      #expect(again.state.counter == 1)
    }

    @Test func internalPropertiesNeverProduceReactions() {
      let substance = Store(initialState: InternalState())
      let heard = Console()
      let states = Console()
      let whole = substance.observe(from: .nextChange) { states.show($0._internal) }
      let subscription = substance.react { reaction in
        reaction.on(\._internal) { _ in heard.show("key path _internal") }
        reaction.on("_internal") { _ in heard.show("dotted _internal") }
        reaction.on(\.counter) { change in heard.show("counter \(change.new)") }
      }
      substance.dispatcher.transaction { tx in
        try tx.update(substance) { $0._internal = "recomputed" }
      }
      #expect(heard.lines.isEmpty)
      #expect(states.lines == ["recomputed"])
      substance.dispatcher.transaction { tx in try tx.update(substance) { $0.counter = 1 } }
      #expect(heard.lines == ["counter 1"])
      subscription.cancel()
      whole.cancel()
    }

    @Test func theLowLevelAPI() {
      let screen = Screen()
      let dispatcher = Dispatcher()
      let app = Store(initialState: AppState(), dispatcher: dispatcher, reducer: App.reducer)
      let locksSeen = Console()
      let tap = app.onAction { _, _ in locksSeen.show("locks: \(dispatcher.lockCount)") }

      let bag = SubscriptionBag()
      // attachReactor(to:mixing:)
      app.react(owner: screen) { screen, reaction in
        reaction.on(\.counter) { change in screen.console.show("counter = \(change.new)") }
      }
      .store(in: bag)
      let lock = dispatcher.pause()  // lock()
      dispatcher.exclusive(Mixers.Login(username: "foo"))  // lock(withMixer:payload:)
      lock.release()  // removeLocks()
      dispatcher.dispatch(Mixers.Login())  // applyMixer(_:payload:)
      bag.cancelAll()  // detachReactor(from:), purge()

      #expect(lock.isReleased)
      #expect(!dispatcher.isPaused)
      #expect(app.state.counter == 2)
      #expect(screen.console.lines == ["counter = 1", "counter = 2"])
      #expect(app.observerCount == 0)
      // The exclusive action ran while both locks were held; the next one after their removal.
      #expect(locksSeen.lines == ["locks: 2", "locks: 0"])
      tap.cancel()
    }
  }
}
