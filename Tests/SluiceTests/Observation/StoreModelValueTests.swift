import Observation
import Testing

@testable import Sluice

/// Values that are not `Equatable`, read through a model: compared at run time when they can
/// be, their readers invalidated on every change of the state otherwise.
@MainActor
@Suite struct StoreModelValueTests {
  /// A value that is not `Equatable`.
  struct Plain: Sendable {
    var count = 0
  }

  /// A state that is not `Equatable` either: every action the store handles is a change.
  struct Screen: Sendable {
    var plain = Plain()
    var other = 0
    var number = 0
  }

  struct BumpPlain: Action {}
  struct BumpOther: Action {}
  struct BumpNumber: Action {}

  static func store() -> Store<Screen> {
    Store(
      initialState: Screen(),
      reducer: Reducer<Screen>()
        .on(BumpPlain.self) { state, _ in state.plain.count += 1 }
        .on(BumpOther.self) { state, _ in state.other += 1 }
        .on(BumpNumber.self) { state, _ in state.number += 1 })
  }

  /// Reads `path` where its value is not known to be `Equatable`.
  static func readAnywhere<State, Value: Sendable>(
    _ model: StoreModel<State>, _ path: KeyPath<State, Value> & Sendable
  ) -> Value {
    model[path]
  }

  /// Tracks what `read` reads; the flag is set when the model invalidates it.
  static func tracking(_ read: @escaping () -> Void) -> ModelFlag {
    let invalidated = ModelFlag()
    withObservationTracking(read) { invalidated.set() }
    return invalidated
  }

  @Test func aValueThatIsNotEquatableIsReadAndItsReaderInvalidatedOnEveryChange() {
    let model = StoreModel(Self.store())
    #expect(model.plain.count == 0)
    let invalidated = Self.tracking { _ = model.plain }
    model.dispatch(BumpOther())
    #expect(invalidated.isSet, "a value that cannot be compared is invalidated per change")

    let invalidatedAgain = Self.tracking { _ = model.plain }
    model.dispatch(BumpPlain())
    #expect(invalidatedAgain.isSet)
    #expect(model.plain.count == 1)
  }

  @Test func aValueEquatableAtRunTimeInvalidatesItsReaderOnlyWhenItChanges() {
    let model = StoreModel(Self.store())
    #expect(Self.readAnywhere(model, \.number) == 0)
    let invalidated = Self.tracking { _ = Self.readAnywhere(model, \.number) }
    model.dispatch(BumpOther())
    #expect(!invalidated.isSet)
    model.dispatch(BumpNumber())
    #expect(invalidated.isSet)
    #expect(Self.readAnywhere(model, \.number) == 1)
  }

  @Test func changesFromOtherThreadsReachAValueThatIsNotEquatable() async {
    let store = Self.store()
    let model = StoreModel(store)
    _ = model.plain
    let finished = await runOnThreads(2) { _ in
      for _ in 0..<100 { store.dispatch(BumpPlain()) }
    }
    #expect(finished)
    #expect(await ModelFixtures.settled(model))
    #expect(model.plain.count == 200)
  }

  @Test func releasingTheLastValueThatIsNotEquatableCancelsTheStateObserver() {
    let store = Self.store()
    let model = StoreModel(store)
    _ = model.plain
    _ = model.other
    #expect(store.observerCount == 2)
    for _ in 0..<StoreModel<Screen>.releaseAfter {
      model.dispatch(BumpOther())
      _ = model.other
    }
    #expect(store.observerCount == 1)
  }
}
