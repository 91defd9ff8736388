import Foundation
import Testing

@testable import Sluice

/// Every example of Flask's README, written with Sluice: substances are stores, mixers are
/// actions or transaction updates, reactors are `react`, the Flux lock is `pause()`, and
/// `lock(withMixer:)` is `exclusive(_:)`.
@Suite struct FlaskReadmeExampleTests {
  // MARK: - Substances, mixers, reactors

  @Test func aReactiveSubstanceReducesItsMixerAndTheReactorHearsTheCounter() {
    let dispatcher = Dispatcher()
    let app = FlxFixtures.app(dispatcher)
    let feed = Store(initialState: FlxAppState(), dispatcher: dispatcher)  // a plain Substance
    let owner = TxOwner()
    let heard = Recorder<Int>()
    app.react(owner: owner) { _, reaction in
      reaction.on(\.counter) { change in heard.append(change.new) }
    }
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(app.state.counter == 1)
    #expect(feed.state == FlxAppState())
    #expect(heard.values == [1])
    withExtendedLifetime(owner) {}
  }

  @Test func reduxStyleAChainReactionMixingOneSubstanceTwiceReactsOnce() {
    let dispatcher = Dispatcher()
    let substance = Store(initialState: FlxAppState(), dispatcher: dispatcher)
    let controller = FlxViewController()
    // flaskReactions(reaction:)
    substance.react(owner: controller) { controller, reaction in
      controller.handlerCalls.increment()
      reaction.on(\.counter) { _ in
        controller.printed.append("counter = \(reaction.newState?.counter ?? -1)")
      }
      reaction.on(\.text) { _ in
        controller.printed.append("text = \(reaction.newState?.text ?? "?")")
      }
    }
    let callsAtAttach = controller.handlerCalls.value
    // produceTestReaction(): mixing(substance){…}.with(substance){…}.andReact()
    let outcome = dispatcher.transaction { tx in
      try tx.update(substance) { $0.counter = 10 }
      try tx.update(substance) { $0.text = "changed!" }
    }
    #expect("\(outcome)" == "committed")
    #expect(controller.printed.values == ["counter = 10", "text = changed!"])
    #expect(controller.handlerCalls.value == callsAtAttach + 1)
  }

  @Test func aChainReactionOverTwoSubstancesCommitsBothAndReactsOncePerSubstance() {
    let dispatcher = Dispatcher()
    let substanceA = Store(initialState: FlxAppState(), dispatcher: dispatcher)
    let substanceB = Store(initialState: FlxAppState(), dispatcher: dispatcher)
    let controller = FlxViewController()
    dispatcher.react(to: [substanceA, substanceB], owner: controller) { controller, reaction in
      reaction.at(substanceA)?.on(\.counter) { change in
        controller.printed.append("A.counter \(change.old)->\(change.new)")
      }
      reaction.at(substanceB)?.on(\.text) { change in
        controller.printed.append("B.text \(change.new)")
      }
    }
    // reactorInstance.mix(substanceA){…}.mix(substanceB){…}.react()
    dispatcher.transaction { tx in
      try tx.update(substanceA) { $0.counter = 10 }
      try tx.update(substanceB) { $0.text = "text" }
    }
    #expect(controller.printed.values == ["A.counter 0->10", "B.text text"])
  }

  @Test func anUnresolvedChainReactionNeverBlocksLaterMixes() {
    // In Flask a ChainReaction that was neither reacted nor aborted stopped every later mix.
    let dispatcher = Dispatcher()
    let substance = Store(initialState: FlxAppState(), dispatcher: dispatcher)
    dispatcher.transaction { tx in
      try tx.update(substance) { $0.counter = 1 }
      try tx.abort()
    }
    dispatcher.transaction { tx in
      try tx.update(substance) { $0.counter = 2 }
      throw TxBoom(code: 1)
    }
    dispatcher.transaction { tx in try tx.update(substance) { $0.counter = 3 } }
    #expect(substance.state.counter == 3)
  }

  // MARK: - Fluxor style

  @Test func fluxorStyleEveryStoreThatHandlesAMixerReducesIt() {
    let dispatcher = Dispatcher()
    dispatcher.register(FlxAppReactive.self)
    dispatcher.register(FlxProfile.self)
    let bystander = FlxFixtures.app(dispatcher)
    guard let appReactive = dispatcher.store(FlxAppReactive.self),
      let profile = dispatcher.store(FlxProfile.self)
    else {
      Issue.record("the registered stores are missing")
      return
    }
    let controller = FlxViewController()
    appReactive.react(owner: controller) { controller, reaction in
      reaction.on(\.title) { _ in
        controller.printed.append("global title = \(reaction.newState?.title ?? "?")")
      }
    }
    profile.react(owner: controller) { controller, reaction in
      reaction.on("username") { change in
        controller.printed.append("username = \(change.new)")
      }
    }
    // Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])
    dispatcher.dispatch(FlxEnvMixers.Login(payload: ["username": "foo"]))
    #expect(appReactive.state == FlxAppReactive(counter: 1, title: "signed"))
    #expect(profile.state.username == "foo")
    #expect(bystander.state.counter == 1)
    dispatcher.dispatch(FlxEnvMixers.Logout())
    #expect(appReactive.state == FlxAppReactive(counter: 1, title: ""))
    #expect(profile.state.username == nil)
    #expect(
      controller.printed.values == [
        "global title = signed", "username = \"foo\"", "global title = ", "username = null",
      ])
  }

  // MARK: - Locks

  @Test func aFluxLockPausesEveryMixUntilReleased() {
    let dispatcher = Dispatcher()
    let substance = FlxFixtures.app(dispatcher)
    let lock = dispatcher.pause()
    // perform operations while the flux is paused
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    dispatcher.transaction { tx in try tx.update(substance) { $0.text = "chained" } }
    #expect(substance.state == FlxAppState())
    lock.release()
    #expect(substance.state.counter == 1)
    #expect(substance.state.text == "chained")
  }

  @Test func aLockReleasedLaterByAnAsyncTaskReplaysTheQueuedMixesInOrder() async {
    let dispatcher = Dispatcher()
    let substance = FlxFixtures.app(dispatcher)
    let titles = Recorder<String>()
    let subscription = substance.observe(\.title, from: .nextChange) { titles.append($0.new) }
    let lock = dispatcher.pause("async work")
    let workDone = TxEvent()
    let releaser = Task {
      #expect(await workDone.wait())
      lock.release()
    }
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    dispatcher.dispatch(FlxEnvMixers.Logout(), mode: .async)
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(substance.state == FlxAppState())
    #expect(dispatcher.queueDepth == 3)
    workDone.signal()
    await releaser.value
    #expect(lock.isReleased)
    #expect(substance.state.counter == 2)
    #expect(titles.values == ["signed", "", "signed"])
    subscription.cancel()
  }

  @Test func anExclusiveMixerHandsItsLockToTheReactionWhichReleasesItFromAnAsyncTask() async {
    let dispatcher = Dispatcher()
    let substance = FlxFixtures.app(dispatcher)
    let controller = FlxViewController()
    let workDone = TxEvent()
    let released = TxEvent()
    substance.react(owner: controller) { controller, reaction in
      reaction.on(\.asyncResult) { change in
        controller.printed.append("asyncResult = \(change.new)")
        // Pass the lock to an async block; release it when the operation is completed.
        guard let lock = reaction.lock else { return }
        lock.onRelease { released.signal() }
        Task {
          _ = await workDone.wait()
          lock.release()
        }
      }
    }
    // Flask.lock(withMixer: EnvMixers.AsyncAction)
    dispatcher.exclusive(FlxEnvMixers.AsyncAction())
    #expect(substance.state.asyncResult == "started")
    #expect(dispatcher.isPaused)
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(substance.state.counter == 0)
    workDone.signal()
    #expect(await released.wait(), "the reaction's task did not release the lock")
    #expect(substance.state.counter == 1)
    #expect(!dispatcher.isPaused)
    #expect(controller.printed.values == ["asyncResult = started"])
  }

  @Test func removeLocksReleasesEveryLockLikeFlasksRemoveLocks() {
    let dispatcher = Dispatcher()
    let substance = FlxFixtures.app(dispatcher)
    let locks = [dispatcher.pause(), dispatcher.pause()]
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    dispatcher.removeAllLocks()
    #expect(substance.state.counter == 1)
    #expect(locks.allSatisfy { $0.isReleased })
  }

  // MARK: - Nested structures

  @Test func nestedStructsAreObservedByDottedPaths() throws {
    let dispatcher = Dispatcher()
    let substance = Store(initialState: FlxNestState(), dispatcher: dispatcher)
    let owner = TxOwner()
    let heard = Recorder<String>()
    substance.react(owner: owner) { _, reaction in
      reaction.on("info") { change in
        heard.append("info.counter=\(change.new[path: "counter"])")
      }
      reaction.on("info.counter") { change in
        heard.append("counter \(change.old(as: Int.self) ?? -1)->\(change.new(as: Int.self) ?? -1)")
      }
      reaction.on("info.nest.foo") { change in
        heard.append("foo \(change.new(as: String.self) ?? "?")")
      }
    }
    // reactor.mix(mySubstance) { … }.andReact()
    dispatcher.transaction { tx in
      try tx.update(substance) { state in
        state.info.counter = 90
        state.info.nest.foo = "mutated"
      }
    }
    #expect(heard.values == ["info.counter=90", "counter 10->90", "foo mutated"])
    // "must preserve after archive": the state survives a Codable round trip.
    let archived = try JSONEncoder().encode(substance.state)
    let restored = try JSONDecoder().decode(FlxNestState.self, from: archived)
    #expect(restored.info.nest.foo == "mutated")
    #expect(restored.info.counter == 90)
    withExtendedLifetime(owner) {}
  }

  // MARK: - Objects and dictionaries

  @Test func anObjectReferenceIsObservedByIdentity() {
    let store = Store(initialState: FlxRefState())
    let first = FlxObject()
    let second = FlxObject()
    let changes = Recorder<String>()
    let subscriptions = [
      store.observe(\.object, from: .nextChange) { change in
        changes.append("observe \(change.old.object === nil) -> \(change.new.object === first)")
      },
      store.react { reaction in
        reaction.on(\.object) { change in
          changes.append("react new is second: \(change.new.object === second)")
        }
      },
    ]
    store.dispatcher.transaction { tx in try tx.update(store) { $0.object = .strong(first) } }
    // The same object again, even through a new (weak) reference: no change.
    store.dispatcher.transaction { tx in try tx.update(store) { $0.object = .weak(first) } }
    store.dispatcher.transaction { tx in try tx.update(store) { $0.object = .strong(second) } }
    #expect(
      changes.values == [
        "observe true -> true", "react new is second: false",
        "observe false -> false", "react new is second: true",
      ])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aWeakObjectReferenceDoesNotKeepItsObjectAliveNorChangeWhenItGoes() {
    let store = Store(initialState: FlxRefState())
    var delegate: FlxObject? = FlxObject()
    weak let weakDelegate = delegate
    let reference = Ref.weak(delegate)
    store.dispatcher.transaction { tx in try tx.update(store) { $0.delegate = reference } }
    let before = store.state.delegate
    #expect(before.object === delegate)
    delegate = nil
    #expect(weakDelegate == nil)
    #expect(store.state.delegate.object == nil)
    #expect(store.state.delegate == before)
  }

  @Test func aStateHoldingObjectReferencesStaysCodableAndNeverArchivesTheObject() throws {
    let object = FlxObject()
    let state = FlxRefState(object: .strong(object), delegate: .weak(object), counter: 3)
    let data = try JSONEncoder().encode(state)
    let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    #expect(json?["counter"] as? Int == 3)
    for key in ["object", "delegate"] {
      // Left out, or null: never the object.
      #expect(json?[key].map { $0 is NSNull } ?? true)
    }
    let decoded = try JSONDecoder().decode(FlxRefState.self, from: data)
    #expect(decoded.object.isEmpty)
    #expect(decoded.delegate.isEmpty)
    #expect(decoded.counter == 3)
    let tree = try StateValueEncoder().encode(state)
    #expect(tree[path: "object"] == .null)
    #expect(tree[path: "counter"] == 3)
  }

  @Test func aDictionaryAssignedLaterIsObservedByANestedDottedPath() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let substance = Store(initialState: FlxDictState(), dispatcher: dispatcher)
    let owner = TxOwner()
    let heard = Recorder<StateValue>()
    substance.react(owner: owner) { _, reaction in
      reaction.on("info.nest.data") { change in heard.append(change.new) }
    }
    // reactor.mix(substance) { substance.prop.info = FlaskDictRef(data) }.react()
    dispatcher.transaction { tx in
      try tx.update(substance) { state in
        state.info = ["foo": "bar", "nest": ["data": "some"]]
      }
    }
    #expect(heard.values == ["some"], "the dotted path into a later dictionary never fired")
    withExtendedLifetime(owner) {}
  }

  @Test func aDictionaryKeyIsObservedByDottedPathOnceItExists() {
    let dispatcher = Dispatcher()
    let substance = Store(
      initialState: FlxDictState(info: ["foo": "initial", "nest": ["data": "none"]]),
      dispatcher: dispatcher)
    let heard = Recorder<String>()
    let subscription = substance.react { reaction in
      reaction.on("info.nest.data") { change in heard.append("\(change.old) -> \(change.new)") }
      reaction.on("info.foo") { change in heard.append("foo \(change.new)") }
    }
    dispatcher.transaction { tx in
      try tx.update(substance) { $0.info = ["foo": "bar", "nest": ["data": "some"]] }
    }
    dispatcher.transaction { tx in try tx.update(substance) { $0.info?["foo"] = "baz" } }
    #expect(heard.values == ["\"none\" -> \"some\"", "foo \"bar\"", "foo \"baz\""])
    subscription.cancel()
  }

  @Test func aDictionaryKeyIsObservedByAKeyPathThroughSubscripts() {
    let dispatcher = Dispatcher()
    let substance = Store(initialState: FlxDictKeyPathState(), dispatcher: dispatcher)
    let heard = Recorder<String>()
    let subscriptions = [
      substance.observe(\.info["nest"]["data"], from: .nextChange) { change in
        heard.append("observe \(change.old) -> \(change.new)")
      },
      substance.react { reaction in
        reaction.on(\.info["nest"]["data"]) { change in heard.append("react \(change.new)") }
      },
    ]
    dispatcher.transaction { tx in
      try tx.update(substance) { $0.info = ["foo": "bar", "nest": ["data": "some"]] }
    }
    dispatcher.transaction { tx in try tx.update(substance) { $0.info["foo"] = "changed" } }
    dispatcher.transaction { tx in try tx.update(substance) { $0.info["nest"]["data"] = nil } }
    #expect(
      heard.values == [
        "observe null -> \"some\"", "react \"some\"", "observe \"some\" -> null", "react null",
      ])
    withExtendedLifetime(subscriptions) {}
  }

  // MARK: - Internal properties

  @Test func underscoredPropertiesNeverProduceChanges() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let substance = FlxFixtures.app(dispatcher)
    let heard = Recorder<String>()
    let handlerCalls = TxCount()
    let subscription = substance.react { reaction in
      handlerCalls.increment()
      reaction.on(\._internal) { _ in heard.append("key path _internal") }
      reaction.on("_internal") { _ in heard.append("dotted _internal") }
      reaction.on(\.counter) { change in heard.append("counter \(change.new)") }
    }
    let callsAtAttach = handlerCalls.value
    dispatcher.dispatch(FlxEnvMixers.TouchInternal())
    dispatcher.transaction { tx in try tx.update(substance) { $0._internal = "recomputed" } }
    #expect(substance.state._internal == "recomputed")
    #expect(heard.values.isEmpty)
    #expect(handlerCalls.value == callsAtAttach)
    dispatcher.dispatch(FlxEnvMixers.Login(payload: [:]))
    #expect(heard.values == ["counter 1"])
    #expect(log.issues.isEmpty)
    subscription.cancel()
  }
}
