/// Work that must be done before the lane wakes a waiter or lets go: what makes a step's
/// effects outside the process (a write-through save) durable before anybody sees the step
/// return.
///
/// A part of Sluice arms its hook on the lane while it runs there (``Lane/arm(_:)``); the lane's
/// state machine asks for the armed hooks (``LaneStateMachine/Step/runHooks``) before it wakes
/// anybody and before the drainer lets go, so a chain of actions runs a hook once, at its end.
protocol BeforeWakeHook: AnyObject {
  /// Whether the hook is armed now (lane only; the lane sets it, the hook reads it).
  var isArmed: Bool { get set }
  /// Does the pending work (lane only). The hook is disarmed before this is called, so it may
  /// arm itself again.
  func beforeWake()
}

extension Lane {
  /// Arms `hook` for the next wake-up or let-go (drainer only); arming an armed hook does
  /// nothing.
  func arm(_ hook: any BeforeWakeHook) {
    guard !hook.isArmed else { return }
    hook.isArmed = true
    armedHooks.append(hook)
  }

  /// Runs the armed hooks, in the order they were armed (drainer only).
  func runArmedHooks() {
    let hooks = armedHooks
    armedHooks.removeAll(keepingCapacity: true)
    for hook in hooks {
      hook.isArmed = false
      hook.beforeWake()
    }
  }

  /// The object of type `T` this lane keeps for one part of Sluice, made by `make` on first use
  /// (drainer only).
  func local<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
    let key = ObjectIdentifier(type)
    if let existing = locals[key] as? T { return existing }
    let made = make()
    locals[key] = made
    return made
  }
}
