extension Store {
  /// Saves the current state, so that ``rollbackState(file:line:)`` can return to it (Flask's
  /// `captureState`). A later capture replaces the earlier one.
  ///
  /// Runs on the lane like an action: actions dispatched before it are reduced first.
  public func captureState() {
    let core = self.core
    core.lane.perform(.change) { core.captured = core.current }
  }

  /// Returns the store to the state saved by ``captureState()``, observed like any change, and
  /// forgets the saved state (Flask's `rollbackState`). On a shared lane it changes nothing
  /// and reports ``SharedLaneError/Kind/localOnly(_:)``: the state comes from the log only.
  ///
  /// Without a saved state, a ``ReportedIssue/Kind/nothingCaptured`` issue is reported and
  /// nothing changes.
  public func rollbackState(file: StaticString = #fileID, line: UInt = #line) {
    let core = self.core
    // On a shared lane the state comes from the log only.
    if core.lane.refuseOnSharedLane("state rollback") != nil { return }
    core.lane.perform(.change) {
      guard let captured = core.captured else {
        core.lane.report(
          .nothingCaptured,
          "rollbackState() on Store<\(State.self)> found no captured state; nothing "
            + "changed.", file: file, line: line)
        return
      }
      core.captured = nil
      core.replaceState(with: captured)
    }
  }

  /// Keeps the current state and forgets the saved one (Flask's `commitState`).
  public func commitState() {
    let core = self.core
    core.lane.perform(.change) { core.captured = nil }
  }

  /// Whether a state is saved by ``captureState()``.
  public var hasCapturedState: Bool {
    let core = self.core
    return core.lane.performReturning { core.captured != nil } ?? false
  }
}
