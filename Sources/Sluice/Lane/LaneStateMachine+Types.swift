// The values the lane's state machine keeps: queued items, who waits for a chain, who drains.
extension LaneStateMachine {
  /// A queued item: its payload and two words (a million queued actions take 32 MB).
  struct Item {
    var payload: Payload
    var seq: Seq
    /// The root (low 63 bits: sequence numbers never get near 2^63) and the bypass flag.
    private var rootAndBypass: Seq

    private static var bypassBit: Seq { 1 << 63 }

    init(payload: Payload, seq: Seq, root: Seq, bypass: Bool) {
      self.payload = payload
      self.seq = seq
      rootAndBypass = root | (bypass ? Self.bypassBit : 0)
    }

    /// The root whose chain the item belongs to; 0 for none.
    var root: Seq {
      get { rootAndBypass & ~Self.bypassBit }
      set { rootAndBypass = newValue | (rootAndBypass & Self.bypassBit) }
    }

    /// Whether the item is lane work that runs even while the lane is paused.
    var bypass: Bool { rootAndBypass & Self.bypassBit != 0 }
  }

  /// Who waits for a root's chain.
  enum Waiter {
    /// A thread blocked in a synchronous call; it reads its outcome when woken.
    case thread
    /// A task suspended in `send` or `performAsync`; resumed when the chain is complete.
    case resume(Resumer)
    /// The drainer serving this chain (it does not block).
    case drainer
  }

  struct Root {
    /// Items of the chain not processed yet (queued or running).
    var outstanding: Int
    /// Items of the chain waiting in the main queue (held while the lane is paused).
    var inMain: Int
    var waiter: Waiter
  }

  /// The open roots by sequence number, the root touched last kept beside the dictionary (a
  /// chain touches its root at each transition; a dictionary access hashes).
  struct RootTable {
    private var others: [Seq: Root] = [:]
    /// The sequence number of `last` (when `last` is `nil`, it is no longer open).
    private var lastSeq: Seq = 0
    private var last: Root?

    subscript(seq: Seq) -> Root? {
      get { seq == lastSeq ? last : others[seq] }
      set { if seq == lastSeq { last = newValue } else { others[seq] = newValue } }
    }

    /// Opens the root `seq` (a new sequence number): it is the one touched last now.
    mutating func open(_ seq: Seq, _ root: Root) {
      if let last { others[lastSeq] = last }
      lastSeq = seq
      last = root
    }

    /// Every open root (a copy: for iterating while removing).
    var all: [Seq: Root] {
      var all = others
      if let last { all[lastSeq] = last }
      return all
    }
  }

  /// What a blocked thread learns when it is woken.
  enum Outcome: Equatable {
    /// Its chain is done, or cannot go on until a lock is released: return.
    case finished
    /// It holds the lane now: drain until its chain is done.
    case drain
  }

  /// Who holds the lane, and in which phase.
  enum Drainer: Equatable {
    /// Nobody: the lane is idle (items may wait for a lock's release).
    case none
    /// Claimed with the lock-free shortcut, for one item that was never queued.
    case fast
    /// A caller serving its root's chain (0: a chain that is already done).
    case caller(Seq)
    /// A caller whose chain is done, running what was queued before `horizon` (the sequence
    /// numbers below it): every item a blocked caller waits for, and `extraLeft` others.
    case finishing(horizon: Seq, extraLeft: Int)
    /// Handed to the blocked caller of this root, not running yet (see
    /// ``LaneStateMachine/canClaim``).
    case heir(Seq)
    /// The lane's worker queue: drains until nothing can run. A caller takes the lane over
    /// until its block starts.
    case worker(started: Bool)
  }
}
