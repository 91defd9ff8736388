import Foundation
import Sluice
import Testing

// Metadata is keyed by the type of its value; two facts of one type (two dates) get a small
// type each, as a user defines them (Mini-Swift's dynamic `promise.date`).

struct LdCachedAt: Sendable, Equatable {
  let value: Date
  init(_ value: Date) { self.value = value }
}
struct LdExpiresAt: Sendable, Equatable {
  let value: Date
  init(_ value: Date) { self.value = value }
}
struct LdAttempts: Sendable, Equatable {
  let value: Int
  init(_ value: Int) { self.value = value }
}

/// A `Sendable` value that is not `Equatable` (it holds a closure).
struct LdToken: Sendable {
  let name: String
  let make: @Sendable () -> Int
}

extension LoadableMetadata {
  /// Mini-Swift's `promise.date`, as a typed extension property.
  fileprivate var date: Date? {
    get { self[LdCachedAt.self]?.value }
    set { self[LdCachedAt.self] = newValue.map(LdCachedAt.init) }
  }
}

extension Loadable {
  /// Mini-Swift's `promise.date = Date()`, spelled on the loadable itself.
  fileprivate var date: Date? {
    get { metadata.date }
    set { metadata.date = newValue }
  }
}

@Suite struct LoadableMetadataTests {
  @Test func startsEmpty() {
    let metadata = LoadableMetadata()
    #expect(metadata.isEmpty)
    #expect(metadata[LdCachedAt.self] == nil)
    #expect(metadata.date == nil)
    #expect(metadata == LoadableMetadata())
  }

  @Test func typedKeysStoreAndReadBack() {
    var promise = Loadable<Bool>.idle
    promise.date = LdDates.t1
    // Later on...
    let date: Date? = promise.date
    #expect(date == LdDates.t1)
    #expect(promise.metadata[LdCachedAt.self]?.value == LdDates.t1)
    #expect(!promise.metadata.isEmpty)

    var task: TaskStatus = .idle
    task.date = LdDates.t2
    #expect(task.date == LdDates.t2)
  }

  @Test func typesOfOneValueTypeKeepTheirValuesApart() {
    var metadata = LoadableMetadata()
    metadata[LdCachedAt.self] = LdCachedAt(LdDates.t0)
    metadata[LdExpiresAt.self] = LdExpiresAt(LdDates.t3)
    metadata[LdAttempts.self] = LdAttempts(2)
    #expect(metadata[LdCachedAt.self]?.value == LdDates.t0)
    #expect(metadata[LdExpiresAt.self]?.value == LdDates.t3)
    #expect(metadata[LdAttempts.self]?.value == 2)

    metadata[LdCachedAt.self] = LdCachedAt(LdDates.t1)
    #expect(metadata[LdCachedAt.self]?.value == LdDates.t1)
    #expect(metadata[LdExpiresAt.self]?.value == LdDates.t3)
  }

  @Test func holdsNonEquatableSendableValues() {
    var metadata = LoadableMetadata()
    metadata[LdToken.self] = LdToken(name: "session", make: { 42 })
    let token = metadata[LdToken.self]
    #expect(token?.name == "session")
    #expect(token?.make() == 42)
  }

  @Test func removingWithNil() {
    var metadata = LoadableMetadata()
    metadata[LdCachedAt.self] = LdCachedAt(LdDates.t0)
    metadata[LdToken.self] = LdToken(name: "t", make: { 1 })
    metadata[LdCachedAt.self] = nil
    #expect(metadata[LdCachedAt.self] == nil)
    #expect(metadata[LdToken.self] != nil)
    metadata[LdToken.self] = nil
    #expect(metadata.isEmpty)
    #expect(metadata == LoadableMetadata())

    // Removing what is not there changes nothing.
    metadata[LdAttempts.self] = nil
    #expect(metadata.isEmpty)
  }

  @Test func equatableValuesCompareByValue() {
    var first = LoadableMetadata()
    var second = LoadableMetadata()
    first[LdCachedAt.self] = LdCachedAt(LdDates.t1)
    second[LdCachedAt.self] = LdCachedAt(
      Date(timeIntervalSince1970: LdDates.t1.timeIntervalSince1970))
    #expect(first == second)

    second[LdCachedAt.self] = LdCachedAt(LdDates.t2)
    #expect(first != second)
  }

  @Test func differentKeysAreNotEqual() {
    var first = LoadableMetadata()
    var second = LoadableMetadata()
    first[LdCachedAt.self] = LdCachedAt(LdDates.t1)
    second[LdExpiresAt.self] = LdExpiresAt(LdDates.t1)
    #expect(first != second)

    second[LdCachedAt.self] = LdCachedAt(LdDates.t1)
    #expect(first != second)  // one more key
    #expect(second != first)
  }

  @Test func nonEquatableValuesAreEqualOnlyToTheSameAssignmentCopied() {
    var first = LoadableMetadata()
    first[LdToken.self] = LdToken(name: "t", make: { 1 })
    let copy = first
    #expect(copy == first)

    // The same content assigned again is a new assignment: a change.
    var second = LoadableMetadata()
    second[LdToken.self] = LdToken(name: "t", make: { 1 })
    #expect(first != second)

    var reassigned = first
    reassigned[LdToken.self] = first[LdToken.self]
    #expect(reassigned != first)
  }

  @Test func reassigningAnEquatableValueIsNoChange() {
    var metadata = LoadableMetadata()
    metadata[LdAttempts.self] = LdAttempts(1)
    var again = metadata
    again[LdAttempts.self] = LdAttempts(1)
    #expect(again == metadata)
  }

  @Test func metadataTakesPartInLoadableEquality() {
    var first = Loadable.loaded(1)
    var second = Loadable.loaded(1)
    first.date = LdDates.t0
    #expect(first != second)
    second.date = LdDates.t0
    #expect(first == second)
    second.date = LdDates.t1
    #expect(first != second)
  }

  @Test func metadataSurvivesStatusChanges() {
    var promise = Loadable<Int>.idle
    promise.date = LdDates.t0
    promise.start()
    #expect(promise.date == LdDates.t0)
    promise.fill(1)
    #expect(promise.date == LdDates.t0)
    promise.fail(LdFailure("x"))
    #expect(promise.date == LdDates.t0)
    promise.reset()
    #expect(promise.date == LdDates.t0)
    #expect(promise.map { $0 + 1 }.date == LdDates.t0)
  }

  @Test func settingMetadataInAReducerIsObservedLikeAnyChange() {
    struct Stamp: Action { let date: Date }
    let store = Store(
      initialState: MiniPromiseState(),
      reducer: Reducer<MiniPromiseState>().on(Stamp.self) { state, action in
        state.counter.date = action.date
      })
    let seen = Recorder<Date?>()
    let subscription = store.observe(\.counter) { change in seen.append(change.new.date) }
    store.dispatch(Stamp(date: LdDates.t1))
    store.dispatch(Stamp(date: LdDates.t1))  // no change
    store.dispatch(Stamp(date: LdDates.t2))
    subscription.cancel()
    #expect(seen.values == [nil, LdDates.t1, LdDates.t2])
  }
}
