#if SLUICE_NETWORK_CASES
  import Foundation
  import Sluice
  import SluiceInspector

  /// `inspector.attached`: what an attached inspector costs each action.
  enum InspectorCases {
    static let all: [BenchCase] = [
      BenchCase(name: "inspector.attached", make: attached)
    ]

    /// `dispatch.observers0`'s store with an inspector attached and no page connected: each
    /// dispatch is queued with its site, the store reports the step, and the inspector keeps the
    /// action and the states before and after in its ring (1,000 records), encoding nothing.
    static func attached() -> (Int) -> Void {
      let store = Store(
        initialState: Counter(value: 0),
        reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
      let started = Started()
      PersistenceCases.wait { started.inspector = try await Inspector.start(store.dispatcher) }
      return { iterations in
        withExtendedLifetime(started) {
          for _ in 0..<iterations {
            store.dispatch(Increment())
          }
        }
      }
    }

    /// The inspector, kept alive for the case's loops.
    final class Started: @unchecked Sendable {
      // @unchecked Sendable: written once by the setup task, before the loops run (the setup
      // waits for it).
      var inspector: Inspector?
    }
  }
#else
  /// Built without the inspector (`SLUICE_CORE_ONLY=1`): no cases.
  enum InspectorCases {
    static let all: [BenchCase] = []
  }
#endif
