import Synchronization

/// The shared half of a lane: the one lock, the ``LaneStateMachine`` it guards (every
/// transition runs under `lock`, through ``withMachine(_:)``; ``Lane`` does what it returns
/// after the lock), and the atomic `word` of the lock-free shortcut.
///
/// ## The shortcut
/// A synchronous dispatch that finds the lane idle and nothing queued claims it with one
/// compare-and-swap of `word` from 0 to `held`, and lets go with one back to 0. Every locked
/// transition first sets `attention` (no shortcut claim starts while it runs) and tells the
/// machine whether the shortcut is held (``LaneStateMachine/syncShortcut(held:)``); then it
/// writes `word` back from the machine: `held` when a drainer holds the lane, `attention` when
/// anything but a shortcut holder needs the lock, `stopBatch` when the drainer is to stop its
/// batch. A shortcut holder whose closing compare-and-swap fails finishes through the machine.
final class LaneStorage: @unchecked Sendable {
  // @unchecked Sendable: `machine`, `conditions` and `shortcutOff` are only touched under `lock`;
  // `word` is atomic.
  /// `UnsafeContinuation`: a `CheckedContinuation` is copied through value witnesses; the machine
  /// resumes each once, which `LaneModel` checks.
  typealias Machine = LaneStateMachine<
    QueuedWork, UnsafeContinuation<Void, Never>, WeakLock, AnyStoreCore
  >

  static let held = 1
  static let attention = 2
  static let stopBatch = 4

  let word = Atomic<Int>(0)
  let lock = InternalLock()
  /// Guarded by `lock`; exclusivity is enforced by the lock, not at run time.
  @exclusivity(unchecked) private var machine: Machine
  /// The condition each blocked thread sleeps on, by the sequence number it waits for.
  private var conditions: [Machine.Seq: InternalCondition] = [:]
  /// Whether no caller may take the shortcut (an inspector is attached); guarded by `lock`.
  private var shortcutOff = false

  init(maxQueueDepth: Int?) {
    machine = Machine(maxQueueDepth: maxQueueDepth)
  }

  /// Runs `body` on the machine under the lock.
  @inline(__always)
  func withMachine<R>(_ body: (inout Machine) -> R) -> R {
    lock.withLock { withMachineLocked(body) }
  }

  /// Reads the machine under the lock, leaving the shortcut's word alone.
  func peek<R>(_ body: (borrowing Machine) -> R) -> R {
    lock.withLock { body(machine) }
  }

  /// Like ``withMachine(_:)``, for callers that already hold `lock`.
  @inline(__always)
  func withMachineLocked<R>(_ body: (inout Machine) -> R) -> R {
    defer { publishWord() }
    syncWord()
    return body(&machine)
  }

  @inline(__always)
  private func syncWord() {
    let previous = word.bitwiseOr(LaneStorage.attention, ordering: .acquiringAndReleasing)
      .oldValue
    machine.syncShortcut(held: previous & LaneStorage.held != 0)
  }

  @inline(__always)
  private func publishWord() {
    let held = machine.isIdle ? 0 : LaneStorage.held
    let attention = machine.needsAttention || shortcutOff ? LaneStorage.attention : 0
    let stop = machine.batchStopped ? LaneStorage.stopBatch : 0
    word.store(held | attention | stop, ordering: .releasing)
  }

  /// Whether the drainer must stop its batch before its next item (drainer only, between items).
  var batchStopped: Bool {
    word.load(ordering: .acquiring) & LaneStorage.stopBatch != 0
  }

  /// Turns the shortcut off (every caller goes through the machine) or back on, under `lock`.
  func setShortcutOffLocked(_ off: Bool) {
    withMachineLocked { _ in shortcutOff = off }
  }

  /// Claims the idle lane without the lock; `false` when anything needs the lock.
  @inline(__always)
  func tryShortcut() -> Bool {
    word.compareExchange(expected: 0, desired: LaneStorage.held, ordering: .acquiring).exchanged
  }

  /// Lets go of a lane claimed with ``tryShortcut()``; `false` when the machine must decide.
  @inline(__always)
  func endShortcut() -> Bool {
    word.compareExchange(expected: LaneStorage.held, desired: 0, ordering: .releasing).exchanged
  }

  // MARK: - Waiting

  /// Blocks the calling thread until the machine has an outcome for `seq` (it parks there).
  func block(_ seq: Machine.Seq) -> Machine.Outcome {
    lock.lock()
    var outcome = machine.park(seq)
    let condition = outcome == nil ? InternalCondition() : nil
    conditions[seq] = condition
    while outcome == nil, let condition {
      lock.wait(on: condition)
      outcome = machine.park(seq)
    }
    conditions.removeValue(forKey: seq)
    lock.unlock()
    // `condition` is released here, after the lock.
    return outcome ?? .finished
  }

  /// Wakes what a transition said to, outside the lock.
  func wake(_ wake: Machine.Wake) {
    if !wake.threads.isEmpty {
      lock.lock()
      for seq in wake.threads { conditions[seq]?.signal() }
      lock.unlock()
    }
    for resumer in wake.resumers { resumer.resume() }
  }

  /// The locks held now (the machine knows them without keeping them alive).
  var locks: [Lock] { peek { $0.locks.compactMap(\.lock) } }
}
