import Sluice
import SluiceTestSupport
import Testing

/// A dependency of the tests: a greeting that effects read and record.
private struct Greeting: DependencyKey {
  var text: String
  static let defaultValue = Greeting(text: "default")
}

extension Dependencies {
  fileprivate var greeting: Greeting {
    get { self[Greeting.self] }
    set { self[Greeting.self] = newValue }
  }
}

/// Effects that record, on `EffTrigger`, `name` and the greeting they read.
private func greetingEffects(_ name: String, _ seen: Recorder<String>) -> Effects<EffState> {
  Effects<EffState>().on(EffTrigger.self) { _, context in
    seen.append("\(name): \(context.dependencies.greeting.text)")
  }
}

/// `Dependencies`: what effects read through `context.dependencies`, set per store.
@Suite struct DependenciesTests {
  @Test func aStoreWithoutDependenciesReadsTheDefaults() async {
    let seen = Recorder<String>()
    let store = effStore(effects: greetingEffects("store", seen))
    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)
    #expect(seen.values == ["store: default"])
  }

  @Test func eachStoreReadsItsOwnDependenciesOnOneLane() async {
    let seen = Recorder<String>()
    let dispatcher = Dispatcher(label: "dependencies")
    let first = Store(
      initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
      effects: greetingEffects("first", seen)
    ) { $0.greeting = Greeting(text: "fake") }
    let second = Store(
      initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
      effects: greetingEffects("second", seen))
    first.dispatch(EffTrigger(value: 1))
    await effSettle(first)
    #expect(Set(seen.values) == ["first: fake", "second: default"])
    #expect(second.state.count == 1)
  }

  @Test func storesMadeConcurrentlyWithDifferentDependenciesDoNotMix() async {
    let results = await withTaskGroup(of: (Int, [String]).self) { group in
      for index in 0..<32 {
        group.addTask {
          let seen = Recorder<String>()
          let store = Store(
            initialState: EffState(), reducer: effReducer, effects: greetingEffects("s", seen)
          ) { $0.greeting = Greeting(text: "\(index)") }
          store.dispatch(EffTrigger(value: index))
          await effSettle(store)
          return (index, seen.values)
        }
      }
      var results: [Int: [String]] = [:]
      for await (index, values) in group { results[index] = values }
      return results
    }
    #expect(results.count == 32)
    for (index, values) in results { #expect(values == ["s: \(index)"]) }
  }

  @Test func anEffectReadsItsDependenciesAfterItsStoreWent() async {
    let seen = Recorder<String>()
    let gates = EffGates()
    let dispatcher = Dispatcher(label: "dependencies")
    var store: Store<EffState>? = Store(
      initialState: EffState(), dispatcher: dispatcher, reducer: effReducer,
      effects: Effects<EffState>().on(EffTrigger.self) { _, context in
        await gates.wait()  // ignores the cancellation the store's end brings
        seen.append(context.dependencies.greeting.text)
      }
    ) { $0.greeting = Greeting(text: "kept") }
    store?.dispatch(EffTrigger(value: 1))
    weak let gone = store
    store = nil
    #expect(gone == nil)
    gates.open()
    await effCompletes { await dispatcher.settle() }
    #expect(seen.values == ["kept"])
  }

  @Test func aDispatchersEffectsReadTheDependenciesGivenWithThem() async {
    let seen = Recorder<String>()
    let dispatcher = Dispatcher(label: "dependencies")
    let store = effStore(dispatcher: dispatcher)
    dispatcher.addEffects(
      Effects<Void>().on(EffTrigger.self) { _, context in
        seen.append(context.dependencies.greeting.text)
      }
    ) { $0.greeting = Greeting(text: "lane") }
    store.dispatch(EffTrigger(value: 1))
    await effSettle(store)
    #expect(seen.values == ["lane"])
  }

  @Test func theClockIsTheContinuousClockUnlessSet() async {
    let clocks = Recorder<String>()
    let effects = Effects<EffState>().on(EffTrigger.self) { _, context in
      clocks.append("\(type(of: context.dependencies.clock))")
    }
    let plain = effStore(effects: effects)
    let manual = effStore(effects: effects, clock: SuspendingClock())
    plain.dispatch(EffTrigger(value: 1))
    await effSettle(plain)
    manual.dispatch(EffTrigger(value: 2))
    await effSettle(manual)
    #expect(clocks.values == ["ContinuousClock", "SuspendingClock"])
  }
}
