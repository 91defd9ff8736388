import Synchronization

/// One effect, bound to its store (or dispatcher) and ready to run: what the lane finds in its
/// routing table for an action type.
final class EffectRegistration: Sendable {
  enum Kind: Sendable {
    /// Runs an operation under a policy.
    case run(EffectPolicy)
    /// Cancels the runs of an id.
    case cancel
  }

  let actionType: ObjectIdentifier
  /// The interned ``EffectID`` (see ``EffectRuntime/key(for:)``).
  let key: Int
  let kind: Kind
  /// The registrations added together (an `Effects` value), removed and cancelled together.
  let group: EffectGroup
  /// The store whose effect this is (its middleware decides whether it starts); `nil` for the
  /// dispatcher's effects. Strong, like the operation's state reader: the store removes its
  /// registrations when it is deinitialized.
  let owner: AnyStoreCore?
  let errors: ErrorSink
  let source: ErrorEvent.Source
  /// The clock of the owner's dependencies, which a debounce waits on.
  let clock: any Clock<Duration>
  /// Makes the operation for one action (on the lane); `nil` when the action is not of the
  /// registration's type.
  let operation: @Sendable (any Action) -> (@Sendable () async throws -> Void)?

  init(
    actionType: ObjectIdentifier, key: Int, kind: Kind, group: EffectGroup,
    owner: AnyStoreCore?, errors: ErrorSink, source: ErrorEvent.Source,
    clock: any Clock<Duration>,
    operation: @escaping @Sendable (any Action) -> (@Sendable () async throws -> Void)?
  ) {
    self.actionType = actionType
    self.key = key
    self.kind = kind
    self.group = group
    self.owner = owner
    self.errors = errors
    self.source = source
    self.clock = clock
    self.operation = operation
  }
}

/// The identity of one group of registrations (and of a store's loads): a number never
/// reused, unlike an object's address.
struct EffectGroup: Hashable, Sendable {
  private static let counter = Atomic<UInt64>(0)
  private let value: UInt64

  /// A new group.
  init() {
    value = EffectGroup.counter.wrappingAdd(1, ordering: .relaxed).newValue
  }
}
