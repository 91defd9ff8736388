import Foundation

/// The states of a shared lane's stores after an entry of its log, with their hash: a node
/// that starts loads the newest one and applies only the entries after it, and a node that
/// reaches the entry of a snapshot compares its own hash with it.
///
/// A lane makes snapshots; an engine keeps them as they are (`Codable`), by ``sequence``.
public struct SharedSnapshot: Sendable, Hashable, Codable {
  /// The entry the states follow.
  public var sequence: UInt64
  /// The hash of the stores' states: the same states hash the same on every node.
  public var hash: UInt64
  /// Each registered store's state, encoded as sorted-key JSON, by its name.
  var states: [String: Data]
  /// The highest origin sequence of each node up to `sequence`: a node restarted from the
  /// snapshot numbers its actions after its own.
  var origins: [String: UInt64]

  /// Creates a snapshot; `hash` is computed from `states`.
  init(sequence: UInt64, states: [String: Data], origins: [String: UInt64]) {
    self.sequence = sequence
    self.states = states
    self.origins = origins
    hash = Self.hash(of: states)
  }

  /// FNV-1a over the names and states, in name order: the same states hash the same on every
  /// node.
  static func hash(of states: [String: Data]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ bytes: some Sequence<UInt8>) {
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }
    for name in states.keys.sorted() {
      mix(name.utf8)
      mix([0])
      mix(states[name] ?? Data())
      mix([0])
    }
    return hash
  }
}
