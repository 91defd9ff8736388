import Foundation
import Sluice

/// A node of a shared lane with one store, a list of texts, shared for snapshots under the name
/// `texts`: the node the shared-lane tests of every engine start, so that each engine's tests
/// state only what differs.
///
/// ```swift
/// let node = try SharedTextsNode(engine: engine, name: "a", snapshotInterval: 50)
/// try await node.lane.start()
/// node.store.dispatch(SharedTextsNode.Add("milk"))
/// try await node.lane.flush()
/// ```
public struct SharedTextsNode: Sendable {
  /// Appends its text to the list.
  public struct Add: Action, Codable, Equatable {
    /// The text to append.
    public let text: String

    /// Creates the action.
    public init(_ text: String) { self.text = text }
  }

  /// The lane's actions.
  public static let actions = SharedActions().register(Add.self, as: "test.add")

  /// The node's lane.
  public let lane: SharedLane
  /// The list, shared as `texts`.
  public let store: Store<[String]>
  private let reductions: ReductionCounter

  /// Creates a node; its lane is not started.
  ///
  /// - Parameters:
  ///   - engine: The lane's log.
  ///   - name: The node's name.
  ///   - snapshotInterval: The lane's snapshot interval.
  ///   - divergingAt: A text this node appends differently from every other node (its reducer
  ///     is not the same function), or `nil`.
  public init(
    engine: some SharedLogEngine, name: String, snapshotInterval: UInt64,
    divergingAt: String? = nil
  ) throws {
    lane = try SharedLane(
      engine: engine, actions: Self.actions, node: name, snapshotInterval: snapshotInterval)
    let reductions = ReductionCounter()
    self.reductions = reductions
    let reducer = Reducer<[String]>().on(Add.self) { state, action in
      reductions.add()
      state.append(action.text == divergingAt ? "\(action.text), spelled out" : action.text)
    }
    store = Store(initialState: [], dispatcher: lane.dispatcher, reducer: reducer)
    try lane.share(store, as: "texts")
  }

  /// How many `Add` actions this node reduced (not those restored from a snapshot).
  public var reducedCount: Int { reductions.count }
}

/// Counts reductions from any thread.
private final class ReductionCounter: @unchecked Sendable {
  // @unchecked Sendable: `value` is read and written only while `lock` is held.
  private let lock = NSLock()
  private var value = 0

  func add() { lock.withLock { value += 1 } }

  var count: Int { lock.withLock { value } }
}
