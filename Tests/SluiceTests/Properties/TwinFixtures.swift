import Foundation
import Sluice

// Fixtures of the self-property tests (issue 16): two stores of one state type on one lane.
// Every name starts with `Twin` so that it never collides with the helpers of other test files.

/// The state of both stores.
///
/// `trail` shows the order the actions were reduced in; `level` is what the key-path observers
/// watch, often set to the value it already has (which must notify nothing); `marker` is what
/// makes store A's observer dispatch a follow-up action.
struct TwinState: Hashable, Sendable, CustomStringConvertible {
  var trail: [Int] = []
  var level = 0
  var marker: Int?

  var description: String {
    "{trail \(trail), level \(level)" + (marker.map { ", marker \($0)}" } ?? "}")
  }
}

/// One of the two stores of a ``TwinLane``.
enum TwinSide: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
  case a, b

  var description: String { self == .a ? "A" : "B" }
}

/// Handled by both stores: appends `id` to the trail.
struct TwinAppend: Action { let id: Int }
/// Handled by both stores; changes only the store on `side`.
struct TwinLevel: Action {
  let side: TwinSide
  let level: Int
}
/// Handled by store A only (routing by type): sets its marker.
struct TwinMark: Action { let id: Int }

/// What a transaction throws when its script says so.
struct TwinBoom: Error, Equatable { let id: Int }

/// An action with its id, as the reference model reduces it and the harness dispatches it.
enum TwinAction: Hashable, Sendable, CustomStringConvertible {
  case append(id: Int)
  case level(TwinSide, Int)
  case mark(id: Int)

  /// The follow-up that store A's marker observer dispatches, once, for a marker.
  static func followUp(toMarker marker: Int) -> TwinAction { .append(id: -marker) }

  /// The Sluice action; its type routes it.
  var action: any Action {
    switch self {
    case .append(let id): TwinAppend(id: id)
    case .level(let side, let level): TwinLevel(side: side, level: level)
    case .mark(let id): TwinMark(id: id)
    }
  }

  /// Reduces the action into the state of the store on `side`, as the reference model does;
  /// does nothing when that store has no handler for it.
  func reduce(_ state: inout TwinState, on side: TwinSide) {
    switch self {
    case .append(let id): state.trail.append(id)
    case .level(let target, let level): if target == side { state.level = level }
    case .mark(let id): if side == .a { state.marker = id }
    }
  }

  var description: String {
    switch self {
    case .append(let id): "append \(id)"
    case .level(let side, let level): "level \(side)=\(level)"
    case .mark(let id): "mark \(id)"
    }
  }
}

enum TwinFixtures {
  /// The reducer of the store on `side`, written apart from ``TwinAction/reduce(_:on:)`` so that
  /// the model does not share the code it checks.
  static func reducer(for side: TwinSide) -> Reducer<TwinState> {
    let reducer = Reducer<TwinState>()
      .on(TwinAppend.self) { state, action in state.trail.append(action.id) }
      .on(TwinLevel.self) { state, action in
        if action.side == side { state.level = action.level }
      }
    return side == .a
      ? reducer.on(TwinMark.self) { state, action in state.marker = action.id } : reducer
  }
}

/// A thread-safe set of markers already acted upon: a marker's follow-up is dispatched once.
final class TwinClaims: @unchecked Sendable {
  // @unchecked Sendable: `claimed` is only touched under `lock`.
  private let lock = NSLock()
  private var claimed: Set<Int> = []

  /// Whether `marker` was not claimed before; claims it.
  func claim(_ marker: Int) -> Bool { lock.withLock { claimed.insert(marker).inserted } }
}
