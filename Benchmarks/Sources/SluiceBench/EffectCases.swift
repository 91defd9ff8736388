import Foundation
import Sluice

/// `effect.*`: what effects add to a dispatch.
enum EffectCases {
  static let all: [BenchCase] = [
    BenchCase(name: "effect.unrelated", make: unrelated),
    BenchCase(name: "effect.drop_while_running", make: dropWhileRunning),
    BenchCase(name: "effect.start", make: start),
  ]

  struct Other: Action {}

  static let reducer = Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 }

  /// `dispatch.observers0` on a store that has an effect for another action type: effects must
  /// cost nothing to the actions that have none.
  static func unrelated() -> (Int) -> Void {
    let runs = Counter64()
    let store = Store(
      initialState: Counter(value: 0), reducer: reducer,
      effects: Effects<Counter>().on(Other.self) { _, _ in runs.add() })
    return { iterations in
      for _ in 0..<iterations { store.dispatch(Increment()) }
      require(runs.value == 0, "effect.unrelated", "the effect of another action type ran")
    }
  }

  /// Dispatching an action whose `.dropWhileRunning` effect is in flight: the policy check
  /// drops every run after the first (no task is made).
  static func dropWhileRunning() -> (Int) -> Void {
    let runs = Counter64()
    let store = Store(
      initialState: Counter(value: 0), reducer: reducer,
      effects: Effects<Counter>().on(Increment.self, policy: .dropWhileRunning) { _, _ in
        runs.add()
        try await Task.sleep(for: .seconds(3_600))
      })
    store.dispatch(Increment())
    return { iterations in
      withExtendedLifetime(store) {
        for _ in 0..<iterations { store.dispatch(Increment()) }
      }
      while runs.value == 0 { usleep(50) }
      require(
        runs.value == 1, "effect.drop_while_running",
        "expected the one blocked run, saw \(runs.value) runs")
    }
  }

  /// Dispatching an action whose `.every` effect does nothing: the dispatch plus starting a
  /// task. The loop waits for the tasks it started before it returns.
  static func start() -> (Int) -> Void {
    let runs = Counter64()
    let store = Store(
      initialState: Counter(value: 0), reducer: reducer,
      effects: Effects<Counter>().on(Increment.self) { _, _ in runs.add() })
    return { iterations in
      let before = runs.value
      for _ in 0..<iterations { store.dispatch(Increment()) }
      // Every effect ran (their tasks end right after).
      while runs.value - before < iterations { usleep(50) }
      require(
        runs.value - before == iterations, "effect.start",
        "expected \(iterations) runs, saw \(runs.value - before)")
    }
  }
}

/// A counter shared with effect tasks.
final class Counter64: @unchecked Sendable {
  // @unchecked Sendable: `count` is only touched under `lock`.
  private let lock = NSLock()
  private var count = 0

  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
