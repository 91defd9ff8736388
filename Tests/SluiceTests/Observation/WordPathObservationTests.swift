import Testing

@testable import Sluice

/// Key paths to stored integers and `Bool`s, which the lane compares as bytes (``WordSlot``):
/// S8 still holds for every width, across registrations and sweeps that rebuild the slots.
@Suite struct WordPathObservationTests {
  struct Inner: Equatable, Sendable {
    var small: Int8 = 0
    var count = 0
  }

  struct Words: Equatable, Sendable {
    var flag = false
    var count = 0
    var medium: Int32 = 0
    var byte: UInt8 = 0
    var ratio = 0.0
    var inner = Inner()
  }

  struct Edit: Action {
    let change: @Sendable (inout Words) -> Void
  }

  static func store() -> Store<Words> {
    Store(
      initialState: Words(),
      reducer: Reducer<Words>().on(Edit.self) { state, action in action.change(&state) })
  }

  @Test func everyWidthFiresOnlyWhenItsValueChanged() {
    let store = Self.store()
    let log = ObsRecorder<String>()
    let subscriptions = [
      store.observe(\.flag, from: .nextChange) { log.append("flag \($0.old)→\($0.new)") },
      store.observe(\.count, from: .nextChange) { log.append("count \($0.old)→\($0.new)") },
      store.observe(\.medium, from: .nextChange) { log.append("medium \($0.old)→\($0.new)") },
      store.observe(\.byte, from: .nextChange) { log.append("byte \($0.old)→\($0.new)") },
      store.observe(\.ratio, from: .nextChange) { log.append("ratio \($0.old)→\($0.new)") },
      store.observe(\.inner.small, from: .nextChange) { log.append("small \($0.old)→\($0.new)") },
      store.observe(\.inner.count, from: .nextChange) {
        log.append("inner \($0.old)→\($0.new)")
      },
    ]
    store.dispatch(Edit { $0.flag = true })
    store.dispatch(Edit { $0.flag = true })
    store.dispatch(Edit { $0.count = -1 })
    store.dispatch(Edit { $0.medium = -7 })
    store.dispatch(Edit { $0.byte = 255 })
    store.dispatch(Edit { $0.ratio = 0.5 })
    store.dispatch(Edit { $0.inner.small = -1 })
    store.dispatch(Edit { $0.inner.count = 3 })
    store.dispatch(
      Edit { state in
        state.medium = 8
        state.count = 2
      })
    #expect(
      log.values == [
        "flag false→true", "count 0→-1", "medium 0→-7", "byte 0→255", "ratio 0.0→0.5",
        "small 0→-1", "inner 0→3", "count -1→2", "medium -7→8",
      ])
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aRegistrationOrASweepKeepsTheLastValueOfEverySlot() {
    let store = Self.store()
    let counts = ObsRecorder<Change<Int>>()
    let flags = ObsRecorder<Change<Bool>>()
    let count = store.observe(\.count, from: .nextChange) { counts.append($0) }
    let flag = store.observe(\.flag, from: .nextChange) { flags.append($0) }
    store.dispatch(
      Edit { state in
        state.count = 1
        state.flag = true
      })
    // A new group rebuilds the slots; then a sweep rebuilds them again.
    let other = store.observe(\.byte, from: .nextChange) { _ in }
    store.dispatch(Edit { $0.count = 1 })
    other.cancel()
    store.dispatch(Edit { $0.byte = 1 })
    store.dispatch(
      Edit { state in
        state.count = 2
        state.flag = false
      })
    #expect(counts.values == [Change(old: 0, new: 1), Change(old: 1, new: 2)])
    #expect(flags.values == [Change(old: false, new: true), Change(old: true, new: false)])
    withExtendedLifetime((count, flag)) {}
  }

  @Test func aTransactionNotifiesAWordOnceWithTheValueBeforeIt() {
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: Words(), dispatcher: dispatcher,
      reducer: Reducer<Words>().on(Edit.self) { state, action in action.change(&state) })
    let counts = ObsRecorder<Change<Int>>()
    let subscription = store.observe(\.count, from: .nextChange) { counts.append($0) }
    dispatcher.transaction { tx in
      try tx.update(store) { $0.count = 5 }
      try tx.update(store) { $0.count = 6 }
    }
    dispatcher.transaction { tx in
      try tx.update(store) { $0.count = 9 }
      try tx.abort()
    }
    #expect(counts.values == [Change(old: 0, new: 6)])
    withExtendedLifetime(subscription) {}
  }
}
