import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import Sluice

/// A store definition that counts the stores made from it on each lane they joined.
struct RegCounted: StoreDefinition {
  var renamed = 0
  static let initialState = RegCounted()
  static let reducer = Reducer<RegCounted>()
    .on(RegUserRenamed.self) { state, _ in state.renamed += 1 }
}

@Suite("Store registry: misuse and races")
struct StoreRegistryConcurrencyTests {
  @Test func registeringAStoreOfAnotherDispatcherIsReportedAndIgnored() {
    let log = IssueReporter.collecting()
    let dispatcher = Dispatcher(reporter: log)
    let other = Dispatcher(reporter: .ignoring)
    let foreign = Store(initialState: RegUser(), dispatcher: other, reducer: RegUser.reducer)

    dispatcher.register(foreign)

    #expect(dispatcher.store(RegUser.self) == nil, "a store of another lane is not registered")
    #expect(log.issues.map(\.kind) == [.foreignStore])
    #expect(other.store(RegUser.self) == nil)
  }

  @Test func threadsRacingToRegisterATypeCreateExactlyOneStore() async {
    let threads = 4
    for _ in 0..<30 {
      let log = IssueReporter.collecting()
      let dispatcher = Dispatcher(reporter: log)
      let stores = Recorder<Store<RegCounted>>()
      let arrived = Atomic<Int>(0)
      let finished = await runOnThreads(threads, timeout: hangGuardSeconds) { _ in
        // Every thread waits (yielding its core) until all arrived, so the calls overlap.
        arrived.add(1, ordering: .relaxed)
        while arrived.load(ordering: .relaxed) < threads { sched_yield() }
        stores.append(dispatcher.register(RegCounted.self))
      }
      #expect(finished)

      let identities = Set(stores.values.map(ObjectIdentifier.init))
      #expect(identities.count == 1, "every caller got the one store")
      #expect(dispatcher.lane.orderedCores.count == 1, "exactly one store joined the lane")
      #expect(
        log.issues.map(\.kind) == Array(repeating: .duplicateRegistration, count: threads - 1))
      dispatcher.dispatch(RegUserRenamed(name: "Ada"))
      #expect(dispatcher.store(RegCounted.self)?.state.renamed == 1)
      if identities.count != 1 || dispatcher.lane.orderedCores.count != 1 { break }
    }
  }

  /// Store objects of a registered store made and dropped by racing threads: the store stays on
  /// its lane (no object's `deinit` ends a registered store).
  @Test func objectsOfARegisteredStoreMadeAndDroppedByManyThreadsLeaveItOnItsLane() async {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let weakCore = RegWeak(dispatcher.register(RegUser.self).core)
    let finished = await runOnThreads(4, timeout: hangGuardSeconds) { index in
      for round in 0..<500 {
        dispatcher.store(RegUser.self)?.dispatch(RegUserRenamed(name: "\(index).\(round)"))
      }
    }
    #expect(finished)

    dispatcher.dispatch(RegUserRenamed(name: "last"))
    #expect(dispatcher.store(RegUser.self)?.state.name == "last")
    #expect(dispatcher.store(RegUser.self)?.core === weakCore.object)
  }

  /// Unregistering while threads make and drop objects of the store: it ends exactly when its
  /// last object goes.
  @Test func aStoreUnregisteredWhileThreadsMakeAndDropItsObjectsEndsWithTheLast() async {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let weakCore = RegWeak(dispatcher.register(RegUser.self).core)
    let finished = await runOnThreads(4, timeout: hangGuardSeconds) { index in
      for round in 0..<500 {
        if index == 0, round == 250 { dispatcher.unregister(RegUser.self) }
        _ = dispatcher.store(RegUser.self)?.state
      }
    }
    #expect(finished)

    #expect(dispatcher.store(RegUser.self) == nil)
    #expect(weakCore.object == nil, "the store ended once its last object went")
    #expect(dispatcher.lane.orderedCores.isEmpty, "and left its lane")
  }
}
