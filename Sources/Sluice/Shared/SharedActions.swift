import Foundation

/// The actions that may travel through a shared lane, each under a stable name.
///
/// A shared lane writes an action into its log as its registered name and its JSON encoding,
/// and every node decodes it by that name. The name is yours, not derived from the type at run
/// time: renaming or moving a type keeps its entries readable, and two versions of an app agree
/// on what an entry is.
///
/// ```swift
/// let actions = SharedActions()
///   .register(AddTodo.self, as: "todo.add")
///   .register(CompleteTodo.self, as: "todo.complete")
/// ```
public struct SharedActions: Sendable {
  struct Entry: Sendable {
    let name: String
    let encode: @Sendable (any Action) throws -> Data?
    let decode: @Sendable (Data, JSONDecoder) throws -> any Action
  }

  private var byType: [ObjectIdentifier: Entry] = [:]
  private var byName: [String: Entry] = [:]
  /// Names or types registered twice; a shared lane refuses to start with any.
  private(set) var conflicts: [String] = []

  /// A registry with no action of yours yet (it knows the lane's own barrier, under the name
  /// `sluice.barrier`).
  public init() {
    self = register(SharedLaneBarrier.self, as: "sluice.barrier")
  }

  /// Registers `type` under `name`, which its entries in the log carry.
  ///
  /// Registering a name or a type twice is a conflict: ``SharedLane`` refuses to start and
  /// names it.
  public func register<A: Action & Codable>(_ type: A.Type, as name: String) -> SharedActions {
    var copy = self
    if byName[name] != nil { copy.conflicts.append("the name '\(name)' is registered twice") }
    if byType[ObjectIdentifier(type)] != nil {
      copy.conflicts.append("\(A.self) is registered twice")
    }
    let entry = Entry(
      name: name,
      encode: { action in
        guard let typed = action as? A else { return nil }
        return try Self.sortedKeysEncoder().encode(typed)
      },
      decode: { data, decoder in try decoder.decode(A.self, from: data) })
    copy.byName[name] = entry
    copy.byType[ObjectIdentifier(type)] = entry
    return copy
  }

  /// The registered names, sorted.
  var names: [String] { byName.keys.sorted() }

  /// The name and encoding of `action`.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/unregisteredAction`` when its
  ///   type is not registered, or the encoder's error.
  func encode(_ action: any Action) throws -> (name: String, payload: Data) {
    guard let entry = byType[ObjectIdentifier(type(of: action))],
      let payload = try entry.encode(action)
    else {
      throw SharedLaneError(.unregisteredAction("\(type(of: action))"))
    }
    return (entry.name, payload)
  }

  /// The action an entry of the log holds.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/undecodableEntry`` naming the
  ///   entry's sequence number and why: an unknown name (a newer app wrote it) or bytes that do
  ///   not decode.
  func decode(_ entry: SharedLogEntry, with decoder: JSONDecoder = JSONDecoder()) throws
    -> any Action
  {
    guard let registered = byName[entry.record.name] else {
      throw SharedLaneError(
        .undecodableEntry(
          sequence: entry.sequence,
          reason: "no action is registered under the name '\(entry.record.name)'"))
    }
    do {
      return try registered.decode(entry.record.payload, decoder)
    } catch {
      throw SharedLaneError(
        .undecodableEntry(
          sequence: entry.sequence,
          reason: "'\(entry.record.name)' does not decode: \(error)"))
    }
  }

  /// A JSON encoder with sorted keys: the same value encodes to the same bytes on every node
  /// (actions in the log, states in snapshots). A new one per use: encoders are not shared
  /// across threads.
  static func sortedKeysEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
  }
}

/// Why a shared lane stopped, refused to start, or refused an action, or why its log engine
/// refused an operation.
public struct SharedLaneError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// The action's type is not registered in the lane's ``SharedActions``; it was not
    /// dispatched.
    case unregisteredAction(String)
    /// An entry of the log does not decode (an unknown name, say from a newer version of the
    /// app, or damaged bytes). The node stops before it: it never skips or reorders entries.
    case undecodableEntry(sequence: UInt64, reason: String)
    /// The registry names a type or a name twice.
    case conflictingRegistrations([String])
    /// At a snapshot, this node's states hash differently from the snapshot another node saved
    /// after the same entry: the nodes diverged (a reducer that is not a pure function of the
    /// state and the action, or a state changed outside the log). The node stops there.
    case divergence(sequence: UInt64, expected: UInt64, found: UInt64)
    /// A store's state in a snapshot does not decode, or a store was shared twice.
    case unusableSnapshot(String)
    /// A change of states outside the log, which would make the nodes diverge: a transaction,
    /// a reset, a rollback, a state restored by persistence or replaced by an inspector is
    /// refused (nothing changes); an exclusive action is dispatched through the log as a plain
    /// action. The payload names the feature.
    case localOnly(String)
    /// A sequence number does not fit the engine's storage (SQLite and PostgreSQL keep signed
    /// 64-bit integers).
    case numberOutOfRange(UInt64)
    /// An append found `origin`'s action `originSequence` already in the lane, at `sequence`,
    /// with another name or payload: two nodes used one name, or a node reused a number. None
    /// of the batch was appended.
    case originConflict(origin: String, originSequence: UInt64, sequence: UInt64)
    /// A live node holds the name `node` in `lane` already.
    case nodeInUse(node: String, lane: String)
    /// A lane name that is empty or longer than 200 UTF-8 bytes.
    case invalidLaneName(String)
  }

  /// What went wrong.
  public let kind: Kind
  /// What the lane or the engine was doing, for the log's kinds (`"append to the shared log"`).
  let operation: String?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - kind: What went wrong.
  ///   - operation: What the lane or the engine was doing: an engine of your own names it
  ///     (`"append to the shared log"`, `"claim a node name"`) for the description.
  public init(_ kind: Kind, operation: String? = nil) {
    self.kind = kind
    self.operation = operation
  }

  /// What went wrong, in one sentence.
  public var description: String {
    guard let operation else { return what }
    return "could not \(operation): \(what)"
  }

  /// What went wrong, without the operation.
  private var what: String {
    switch kind {
    case .unregisteredAction(let type):
      "\(type) is not registered with the shared lane's actions; it was not dispatched"
    case .undecodableEntry(let sequence, let reason):
      "entry \(sequence) of the shared log cannot be applied (\(reason)); the node stopped "
        + "before it"
    case .conflictingRegistrations(let conflicts):
      "the shared lane's actions conflict: " + conflicts.joined(separator: "; ")
    case .divergence(let sequence, let expected, let found):
      "after entry \(sequence) of the shared log this node's states hash to \(found), and the "
        + "snapshot saved there to \(expected): the nodes diverged; the node stopped"
    case .unusableSnapshot(let reason):
      "the shared lane's snapshot cannot be used: \(reason)"
    case .localOnly(let feature):
      "a shared lane does not run \(feature)s: they would change this node's states outside "
        + "the log"
    case .numberOutOfRange(let number):
      "\(number) is larger than the largest number a log stores (\(Int64.max))"
    case .originConflict(let origin, let originSequence, let sequence):
      "action \(originSequence) of node '\(origin)' is in the lane already, at \(sequence), as "
        + "another action (two live nodes share a name, or a node reused a number)"
    case .nodeInUse(let node, let lane):
      "a live node is named '\(node)' in lane '\(lane)' already"
    case .invalidLaneName(let name):
      "the lane name '\(name)' is empty or longer than 200 UTF-8 bytes"
    }
  }
}
