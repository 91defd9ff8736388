/// A misuse of Sluice, or a condition a program should know about, reported instead of crashing.
///
/// Sluice never traps on a path that user input or data reaches. When something is wrong — an
/// action dispatched while the lane rejects re-entrant dispatch, a runaway action chain, a store
/// read from inside its own reducer — it builds an `Issue` and hands it to the dispatcher's
/// ``IssueReporter``.
public struct ReportedIssue: Sendable, Hashable, CustomStringConvertible {
  /// What kind of issue this is.
  public struct Kind: Sendable, Hashable, CustomStringConvertible {
    /// A short stable name, such as `"runawayActionChain"`.
    public let name: String

    /// Creates a kind; libraries built on Sluice may define their own.
    public init(_ name: String) { self.name = name }

    public var description: String { name }

    /// An action was dispatched from inside the lane while its policy is ``Dispatcher/Reentrancy/reject``.
    public static let reentrantDispatchRejected = Kind("reentrantDispatchRejected")
    /// An action chain grew past the dispatcher's `maxChainDepth`; its last action was dropped.
    public static let runawayActionChain = Kind("runawayActionChain")
    /// A store's `state` was read from inside one of its own reducers.
    public static let stateReadInsideReducer = Kind("stateReadInsideReducer")
    /// A reducer read a store of another lane that another thread held, before it published a
    /// state: the read returned the store's initial state instead of waiting (the wait could be
    /// a cycle of reducers waiting for each other). Reported once per store; the store publishes
    /// its state from the end of the running step on, after which no read gets the initial
    /// state.
    public static let stateReadCycle = Kind("stateReadCycle")
    /// `waitFor` declared an ordering cycle between stores; the edge that closes it is ignored.
    public static let storeOrderCycle = Kind("storeOrderCycle")
    /// A store type was registered twice on one dispatcher.
    public static let duplicateRegistration = Kind("duplicateRegistration")
    /// A lock was held past its timeout and was released.
    public static let lockTimedOut = Kind("lockTimedOut")
    /// A transaction touched a store on another dispatcher. An update aborted the transaction; a
    /// read returned the store's thread-safe `state`, which is not part of the transaction.
    public static let foreignStoreInTransaction = Kind("foreignStoreInTransaction")
    /// A dotted path names nothing in the state; the query is ignored.
    public static let unknownPath = Kind("unknownPath")
    /// A store was first observed through a key path that is not made of stored properties
    /// only (`\.cells[k]`, a computed property, an optional): the key-path runtime reads it
    /// after every action, some 2,000 instructions, where a ``StateSelector``
    /// (`.select { $0.cells[k] }`) costs about as much as the code it runs. Reported once per
    /// store.
    public static let slowKeyPath = Kind("slowKeyPath")
    /// A state could not be encoded for a dotted-path query.
    public static let unencodableState = Kind("unencodableState")
    /// `settle()` was called from inside one of the lane's own effects; it returned at once.
    public static let settleInsideEffect = Kind("settleInsideEffect")
    /// A store was asked to wait for a store on another dispatcher, or a dispatcher was asked to
    /// register a store on another dispatcher; the request was ignored.
    public static let foreignStore = Kind("foreignStore")
    /// `Subscription.cancel()` waited ``Subscription/maximumCancelWait`` for a call of the
    /// observer running on another thread, and returned before it ended. The observer is not
    /// called again; the running call finishes on its own.
    public static let cancelWaitedTooLong = Kind("cancelWaitedTooLong")
    /// A ``Reaction`` was used after the reactor call it was made for returned; it answered
    /// nothing.
    public static let reactionUsedAfterItsCall = Kind("reactionUsedAfterItsCall")
    /// ``Dispatcher/Transaction/state(of:file:line:)`` was called for a store inside that store's own
    /// ``Dispatcher/Transaction/update(_:file:line:_:)`` body; the state before the transaction was
    /// returned.
    public static let stateReadInsideUpdate = Kind("stateReadInsideUpdate")
    /// ``Dispatcher/Transaction/update(_:file:line:_:)`` was called for a store inside that store's own
    /// `update` body; the inner update did not run and the transaction was aborted.
    public static let reentrantUpdate = Kind("reentrantUpdate")
    /// A ``Dispatcher/Transaction`` was used after its closure returned, or from a thread other
    /// than the one running its closure (code that opted out of the compiler's concurrency
    /// checks): an update or a dispatch did nothing (an update threw, aborting the
    /// transaction), a read returned the store's current `state`.
    public static let transactionUsedOutsideItsClosure = Kind(
      "transactionUsedOutsideItsClosure")
    /// The lane's queue grew past the dispatcher's `maxQueueDepth` because actions were
    /// dispatched without waiting for room: `dispatch(_:mode: .async)` (from any thread, an
    /// effect's ``EffectContext/dispatch(_:file:line:)`` included) or a dispatch from the lane
    /// itself. The actions were queued, not dropped; `send(_:)` is the call that waits for room.
    /// Reported once until the queue is back within the bound.
    public static let queueBoundExceeded = Kind("queueBoundExceeded")
  }

  /// What kind of issue this is.
  public let kind: Kind
  /// A sentence describing what happened and what to do about it.
  public let message: String
  /// The file of the call that caused the issue, as `#fileID` gives it.
  public let fileID: String
  /// The line of the call that caused the issue.
  public let line: UInt

  /// Creates an issue.
  public init(kind: Kind, message: String, fileID: String, line: UInt) {
    self.kind = kind
    self.message = message
    self.fileID = fileID
    self.line = line
  }

  public var description: String { "\(fileID):\(line): Sluice: \(message) [\(kind)]" }
}
