/// Where an action was dispatched: the caller's `#fileID` and `#line`, which every dispatching
/// call takes as default arguments.
package struct DispatchSite: Sendable, Hashable {
  /// The file, as `#fileID` spells it (`Module/File.swift`).
  package let file: String
  /// The line.
  package let line: UInt

  package init(file: String, line: UInt) {
    self.file = file
    self.line = line
  }

  init(_ file: StaticString, _ line: UInt) {
    self.init(file: "\(file)", line: line)
  }
}

/// Why an action was dispatched, as the lane saw it when it was queued.
package enum DispatchCause: Sendable, Hashable {
  /// From outside the lane: a user event, a timer, code that is not an effect.
  case outside
  /// From code running on the lane while step `parent` was processed: an observer, middleware,
  /// a reaction or a transaction. `store` names the store whose observers were being called,
  /// when it was one.
  case lane(parent: UInt64, observerOf: String?)
  /// By an effect that step `parent` started; `effect` describes it (`on SignIn`), `store` is
  /// the inspected store whose effect it is (`nil`: the dispatcher's).
  case effect(parent: UInt64, effect: String, store: ObjectIdentifier?)
  /// From a shared lane's log: an entry that node `node` sent, applied by this node.
  case log(node: String)
}

/// An action's dispatch site and cause, carried with it from its dispatch to its step.
package struct DispatchOrigin: Sendable, Hashable {
  /// Where it was dispatched; `nil` when the lane does not know (it was queued before the
  /// inspector attached).
  package let site: DispatchSite?
  /// Why it was dispatched.
  package let cause: DispatchCause

  package init(site: DispatchSite?, cause: DispatchCause) {
    self.site = site
    self.cause = cause
  }
}

/// What watches a lane step by step: Sluice's inspector.
///
/// Attached with ``Dispatcher/attach(inspector:)``. While one is attached, the lane takes no
/// shortcut: every action is queued with its ``DispatchOrigin``, and every store on the lane
/// reports every step. With none attached, dispatch pays nothing for it.
///
/// Every method is called on the lane, by the thread holding it, one call at a time; none may
/// dispatch synchronously, block, or take the lane's lock.
package protocol LaneInspector: AnyObject, Sendable {
  /// The inspector was attached to a lane with these stores (lane order).
  func attached(to stores: [InspectedStore])
  /// The number of the step being processed, for the causes of the actions it dispatches.
  func currentStep() -> UInt64
  /// A queued action starts its step.
  func stepStarted(_ action: any Action, origin: DispatchOrigin)
  /// Lane work that may change stores (a transaction) starts, asked for from `origin`.
  func workStarted(origin: DispatchOrigin)
  /// A store saw the current step's action (or a committed transaction): the states before and
  /// after, whether it reduced it, whether it has a handler for it, and the action it reduced
  /// instead when its middleware replaced it.
  func storeStepped(
    _ store: InspectedStore, action: any Action, before: any Sendable, after: any Sendable,
    reduced: Bool, handled: Bool, replacement: (any Action)?)
  /// A store's state was replaced outside an action (``Store/reset()``, an inspector's apply).
  func storeReplaced(_ store: InspectedStore, before: any Sendable, after: any Sendable)
  /// A store left the lane (it ended): the inspector may forget it.
  func storeLeft(_ store: InspectedStore)
  /// The lane finished an item (an action with everything its stores did, or lane work).
  func itemEnded()
}

/// What an effect carries while it runs on an inspected lane: the cause of what it dispatches,
/// for that lane and that inspector only (an effect may dispatch to another lane, or outlive
/// the inspector that saw it start).
enum InspectionContext {
  struct EffectCause: Sendable {
    let lane: ObjectIdentifier
    let attachment: UInt64
    let cause: DispatchCause
  }

  @TaskLocal static var effectCause: EffectCause?
}
