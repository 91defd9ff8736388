import Foundation
import Sluice
import Synchronization

/// `floor.call`, `floor.lock` and `dispatch.observers{0,1,100}`.
enum DispatchCases {
  static let all: [BenchCase] = [
    BenchCase(name: "floor.call", make: floorCall),
    BenchCase(name: "floor.lock", make: floorLock),
    BenchCase(name: "dispatch.observers0") { dispatch(observers: 0) },
    BenchCase(name: "dispatch.observers1") { dispatch(observers: 1) },
    BenchCase(name: "dispatch.observers100") { dispatch(observers: 100) },
  ]

  /// The reducer closure called directly on a local state: the cost of the user's own code.
  static func floorCall() -> (Int) -> Void {
    let reduce = opaque(incrementReducer)
    return { iterations in
      var state = Counter(value: 0)
      let action = Increment()
      for _ in 0..<iterations {
        reduce(&state, action)
      }
      consume(state.value)
    }
  }

  /// The same call inside a pthread mutex lock/unlock: what any thread-safe store must pay at
  /// least, and the reference every ratio is relative to.
  static func floorLock() -> (Int) -> Void {
    let reduce = opaque(incrementReducer)
    let mutex = PthreadMutex()
    return { iterations in
      var state = Counter(value: 0)
      let action = Increment()
      for _ in 0..<iterations {
        mutex.lock()
        reduce(&state, action)
        mutex.unlock()
      }
      consume(state.value)
    }
  }

  /// Diagnostic cases (`--extra`): synchronous dispatches from several threads at once.
  static let extra: [BenchCase] = [
    BenchCase(name: "extra.dispatch.contended2") { contended(threads: 2) },
    BenchCase(name: "extra.dispatch.contended3") { contended(threads: 3) },
    BenchCase(name: "extra.dispatch.contended4") { contended(threads: 4) },
    // Issue 24: the same while two CPU-bound threads compete for the cores (a lane that hands
    // itself to a thread that is not running, or sleeps on a time-out, collapses here).
    BenchCase(name: "extra.dispatch.contended4.busy2") { contended(threads: 4, busy: 2) },
  ]

  /// Tells spinning threads to stop.
  final class StopFlag: Sendable {
    let stopped = Atomic<Bool>(false)
  }

  /// `threads` threads each dispatching `Increment()` synchronously to one store, all at once:
  /// what contention costs per dispatch (a caller that finds the lane held queues its action,
  /// then waits for it or drains it). One operation is one dispatch; the threads are started
  /// for each timed loop.
  ///
  /// With `busy`, that many threads spin on the CPU for the whole timed loop, beside the
  /// dispatching threads.
  static func contended(threads: Int, busy: Int = 0) -> (Int) -> Void {
    let store = Store(
      initialState: Counter(value: 0),
      reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
    return { iterations in
      let perThread = max(1, iterations / threads)
      let stop = StopFlag()
      let spinners = DispatchGroup()
      for _ in 0..<busy {
        spinners.enter()
        Thread {
          var spins = 0
          while !stop.stopped.load(ordering: .relaxed) { spins &+= 1 }
          consume(spins)
          spinners.leave()
        }.start()
      }
      defer {
        stop.stopped.store(true, ordering: .relaxed)
        spinners.wait()
      }
      let group = DispatchGroup()
      for _ in 0..<threads {
        group.enter()
        Thread {
          for _ in 0..<perThread { store.dispatch(Increment()) }
          group.leave()
        }.start()
      }
      group.wait()
    }
  }

  /// `store.dispatch(Increment())` on a store of a trivial Equatable state, with `observers`
  /// whole-state observers (every action changes the state, so every observer fires).
  static func dispatch(observers: Int) -> (Int) -> Void {
    let store = Store(
      initialState: Counter(value: 0),
      reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
    let subscriptions = (0..<observers).map { _ in
      store.observe { state in consume(state.value) }
    }
    verifyFires("dispatch.observers\(observers)", expectedFires: 10 * observers) {
      for _ in 0..<10 { store.dispatch(Increment()) }
    }
    return { iterations in
      withExtendedLifetime(subscriptions) {
        for _ in 0..<iterations {
          store.dispatch(Increment())
        }
      }
    }
  }
}
