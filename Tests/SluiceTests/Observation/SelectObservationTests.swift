import Testing

@testable import Sluice

/// `observe(.select { … })`: S8 for a value a closure reads out of the state, such as an element of a
/// collection, whose key path would go through the key-path runtime.
@Suite struct SelectObservationTests {
  struct Shelves: Equatable, Sendable {
    var slices: [Int] = [0, 0, 0]
    var entries: [String: Int] = [:]
  }

  struct Bump: Action { let index: Int }
  struct Put: Action {
    let key: String
    let value: Int?
  }

  static func store(dispatcher: Dispatcher? = nil) -> Store<Shelves> {
    Store(
      initialState: Shelves(), dispatcher: dispatcher,
      reducer: Reducer<Shelves>()
        .on(Bump.self) { state, action in state.slices[action.index] += 1 }
        .on(Put.self) { state, action in state.entries[action.key] = action.value })
  }

  @Test func anElementObserverFiresOnlyWhenItsElementChanged() {
    let store = Self.store()
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(.select { $0.slices[1] }) { changes.append($0) }
    store.dispatch(Bump(index: 0))
    store.dispatch(Bump(index: 1))
    store.dispatch(Bump(index: 2))
    store.dispatch(Bump(index: 1))
    #expect(
      changes.values == [
        Change(old: 0, new: 0), Change(old: 0, new: 1), Change(old: 1, new: 2),
      ])
    subscription.cancel()
    store.dispatch(Bump(index: 1))
    #expect(changes.values.count == 3)
  }

  @Test func aDictionaryEntryComesAndGoes() {
    let store = Self.store()
    let changes = ObsRecorder<Change<Int?>>()
    let subscription = store.observe(.select { $0.entries["k"] }, from: .nextChange) {
      changes.append($0)
    }
    store.dispatch(Put(key: "other", value: 1))
    store.dispatch(Put(key: "k", value: 1))
    store.dispatch(Put(key: "k", value: 1))
    store.dispatch(Put(key: "k", value: nil))
    #expect(changes.values == [Change(old: nil, new: 1), Change(old: 1, new: nil)])
    withExtendedLifetime(subscription) {}
  }

  @Test func aTransactionNotifiesOnceWithTheValueBeforeIt() {
    let dispatcher = Dispatcher()
    let store = Self.store(dispatcher: dispatcher)
    let changes = ObsRecorder<Change<Int>>()
    let subscription = store.observe(.select { $0.slices[0] }, from: .nextChange) {
      changes.append($0)
    }
    dispatcher.transaction { tx in
      tx.dispatch(Bump(index: 0))
      tx.dispatch(Bump(index: 0))
    }
    dispatcher.transaction { tx in
      tx.dispatch(Bump(index: 0))
      try tx.abort()
    }
    #expect(changes.values == [Change(old: 0, new: 2)])
    withExtendedLifetime(subscription) {}
  }

  @Test func selectAndKeyPathObserversRunInRegistrationOrder() {
    let store = Self.store()
    let calls = ObsRecorder<String>()
    let first = store.observe(\.slices[0], from: .nextChange) { _ in calls.append("key path 1") }
    let second = store.observe(.select { $0.slices[0] }, from: .nextChange) { _ in
      calls.append("select")
    }
    let third = store.observe(\.slices[0], from: .nextChange) { _ in calls.append("key path 2") }
    store.dispatch(Bump(index: 0))
    #expect(calls.values == ["key path 1", "select", "key path 2"])
    withExtendedLifetime((first, second, third)) {}
  }

  @Test func twoSelectObserversOfTheSameValueAreIndependent() {
    let store = Self.store()
    let one = ObsRecorder<Change<Int>>()
    let two = ObsRecorder<Change<Int>>()
    let first = store.observe(.select { $0.slices[2] }, from: .nextChange) { one.append($0) }
    store.dispatch(Bump(index: 2))
    let second = store.observe(.select { $0.slices[2] }, from: .nextChange) { two.append($0) }
    first.cancel()
    store.dispatch(Bump(index: 2))
    #expect(one.values == [Change(old: 0, new: 1)])
    #expect(two.values == [Change(old: 1, new: 2)])
    withExtendedLifetime(second) {}
  }

  @Test func aKeyPathThroughTheRuntimeIsReportedOncePerStoreWithTheSelectorInstead() {
    let log = IssueReporter.collecting()
    let store = Self.store(dispatcher: Dispatcher(reporter: log))
    let changes = ObsRecorder<Change<Int>>()
    let stored = store.observe(\.entries, from: .nextChange) { _ in }
    #expect(log.issues.isEmpty)
    let first = store.observe(\.slices[1], from: .nextChange) { changes.append($0) }
    let again = store.observe(\.slices[1], from: .nextChange) { _ in }
    let other = store.observe(\.slices[2], from: .nextChange) { _ in }
    #expect(log.issues.map(\.kind) == [.slowKeyPath])
    #expect(log.issues.first?.message.contains(".select") == true)
    // Still observed as before: only real changes of its own element.
    store.dispatch(Bump(index: 0))
    store.dispatch(Bump(index: 1))
    #expect(changes.values == [Change(old: 0, new: 1)])
    let otherStore = Self.store(dispatcher: Dispatcher(reporter: log))
    let elsewhere = otherStore.observe(\.slices[0]) { _ in }
    #expect(log.issues.count == 2)
    withExtendedLifetime((stored, first, again, other, elsewhere)) {}
  }
}
