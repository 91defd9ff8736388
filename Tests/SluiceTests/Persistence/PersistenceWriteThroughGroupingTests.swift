import Foundation
import Sluice
import Testing

private struct WtgLeft: Codable, Equatable, Sendable { var value = 0 }
private struct WtgRight: Codable, Equatable, Sendable { var value = 0 }
private struct WtgBoth: Action {}
private struct WtgStart: Action {}
private struct WtgStep: Action {}

@Suite struct PersistenceWriteThroughGroupingTests {
  // One action changing two stores that share a storage: one backend write holds both
  // records, and both are there when `dispatch` returns.
  @Test func oneStepChangingTwoStoresIsOneWrite() throws {
    let storage = InMemoryStorage()
    let dispatcher = Dispatcher()
    let left = Store(
      initialState: WtgLeft(), dispatcher: dispatcher,
      reducer: Reducer<WtgLeft>().on(WtgBoth.self) { state, _ in state.value += 1 },
      persistence: .inMemory("left", storage).saving(.writeThrough))
    let right = Store(
      initialState: WtgRight(), dispatcher: dispatcher,
      reducer: Reducer<WtgRight>().on(WtgBoth.self) { state, _ in state.value += 10 },
      persistence: .inMemory("right", storage).saving(.writeThrough))
    let before = storage.writes
    dispatcher.dispatch(WtgBoth())
    #expect(storage.writes == before + 1)
    #expect(
      storage.record("sluice.left").map { String(decoding: $0.data, as: UTF8.self) }
        == #"{"value":1}"#)
    #expect(
      storage.record("sluice.right").map { String(decoding: $0.data, as: UTF8.self) }
        == #"{"value":10}"#)
    #expect(left.persistence?.writeCount == 1)
    #expect(right.persistence?.writeCount == 1)
  }

  // A dispatch whose observer dispatches ten more actions: the chain is processed before the
  // dispatch returns, and written once, with its last state.
  @Test func aChainOfActionsIsWrittenOnceBeforeTheDispatchReturns() throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: WtgLeft(),
      reducer: Reducer<WtgLeft>()
        .on(WtgStart.self) { state, _ in state.value = 100 }
        .on(WtgStep.self) { state, _ in state.value += 1 },
      persistence: .inMemory("chain", storage).saving(.writeThrough))
    let subscription = store.observe(\.value, from: .nextChange) { change in
      if change.new == 100 { for _ in 0..<10 { store.dispatch(WtgStep()) } }
    }
    let before = storage.writes
    store.dispatch(WtgStart())
    #expect(store.state.value == 110)
    #expect(storage.writes == before + 1)
    #expect(
      storage.record("sluice.chain").map { String(decoding: $0.data, as: UTF8.self) }
        == #"{"value":110}"#)
    subscription.cancel()
  }

  // Switching write-through persistence back on from another thread writes the state, on the
  // lane, before `isEnabled` returns.
  @Test func reenablingWritesTheState() throws {
    let storage = InMemoryStorage()
    let store = Store(
      initialState: WtgLeft(),
      reducer: Reducer<WtgLeft>().on(WtgStep.self) { state, _ in state.value += 1 },
      persistence: .inMemory("toggle", storage).saving(.writeThrough))
    store.persistence?.isEnabled = false
    store.dispatch(WtgStep())
    #expect(storage.record("sluice.toggle") == nil)
    store.persistence?.isEnabled = true
    #expect(
      storage.record("sluice.toggle").map { String(decoding: $0.data, as: UTF8.self) }
        == #"{"value":1}"#)
  }
}
