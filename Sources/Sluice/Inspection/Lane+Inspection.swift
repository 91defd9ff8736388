extension Lane {
  /// `work`, dispatched from outside the lane while an inspector is attached, with its origin:
  /// the site, and the effect that dispatched it if one did.
  @inline(never)
  func inspected(_ work: QueuedWork, file: StaticString, line: UInt) -> QueuedWork {
    var content = work.work
    guard case .action = content.kind, content.origin == nil else { return work }
    content.origin = DispatchOrigin(site: DispatchSite(file, line), cause: effectCause())
    return QueuedWork(content)
  }

  /// Where and why the caller is asking for lane work that may change stores (a transaction),
  /// while an inspector is attached; `nil` otherwise.
  func callerOrigin(_ file: StaticString, _ line: UInt) -> DispatchOrigin? {
    guard isInspected.load(ordering: .relaxed) else { return nil }
    if isCurrentThreadDraining, let inspector = activeInspector {
      return origin(inside: inspector, file, line)
    }
    return DispatchOrigin(site: DispatchSite(file, line), cause: effectCause())
  }

  /// The cause the running effect carries, when it started on this lane under the attached
  /// inspector; `.outside` otherwise.
  private func effectCause() -> DispatchCause {
    guard let carried = InspectionContext.effectCause, carried.lane == ObjectIdentifier(self),
      carried.attachment == inspectionAttachment.load(ordering: .relaxed)
    else { return .outside }
    return carried.cause
  }

  /// The origin of an action dispatched by code running on the lane (drainer only).
  @inline(never)
  func origin(inside inspector: any LaneInspector, _ file: StaticString, _ line: UInt)
    -> DispatchOrigin
  {
    DispatchOrigin(
      site: DispatchSite(file, line),
      cause: .lane(
        parent: inspector.currentStep(), observerOf: notifyingCore?.inspectedStore?.name))
  }

  /// Attaches `inspector` (lane work; the caller suspends, blocking no thread, until it ran):
  /// turns the shortcut off, so every action is queued with its origin, and makes every store
  /// report every step. Returns `false`, attaching nothing, when another inspector is attached.
  func attachInspector(_ inspector: any LaneInspector) async -> Bool {
    await performAsync(.query) { [self] in attachOnLane(inspector) } ?? false
  }

  /// The work of ``attachInspector(_:)``, on the lane.
  private func attachOnLane(_ inspector: any LaneInspector) -> Bool {
    lock.lock()
    guard self.inspector == nil else {
      lock.unlock()
      return false
    }
    self.inspector = inspector
    let attachment = inspectionAttachment.wrappingAdd(1, ordering: .relaxed).newValue
    storage.setShortcutOffLocked(true)
    for core in cores { core.installInspection(inspector) }
    let replaced = rebuildRoutingLocked()
    isInspected.store(true, ordering: .relaxed)
    let stores = cores.compactMap(\.inspectedStore)
    lock.unlock()
    withExtendedLifetime(replaced) {}  // Released here, outside the lock.
    activeInspector = inspector
    inspector.attached(to: stores)
    effects.setInspectionCause { [weak self] source, owner in
      guard let self, self.isCurrentThreadDraining, let inspector = self.activeInspector else {
        return nil
      }
      return InspectionContext.EffectCause(
        lane: ObjectIdentifier(self), attachment: attachment,
        cause: .effect(
          parent: inspector.currentStep(), effect: Lane.describeEffect(source),
          store: owner?.inspectedStore.map { ObjectIdentifier($0) }))
    }
    return true
  }

  /// Detaches `inspector` if it is the attached one (lane work; the caller suspends, blocking
  /// no thread, until it ran): the stores stop reporting and the shortcut is back on.
  func detachInspector(_ inspector: any LaneInspector) async {
    await performAsync(.query) { [self] in detachOnLane(inspector) }
  }

  /// Queues the detachment of `inspector` and returns at once (an inspector never stopped goes).
  func detachInspectorLater(_ inspector: any LaneInspector) {
    perform(.query, .none) { [self] in detachOnLane(inspector) }
  }

  /// The work of ``detachInspector(_:)``, on the lane.
  private func detachOnLane(_ inspector: any LaneInspector) {
    lock.lock()
    guard let attached = self.inspector, attached === inspector else {
      lock.unlock()
      return
    }
    self.inspector = nil
    storage.setShortcutOffLocked(false)
    isInspected.store(false, ordering: .relaxed)
    let watchers = cores.compactMap { core in core.takeInspectionLocked().map { (core, $0) } }
    lock.unlock()
    activeInspector = nil
    effects.setInspectionCause(nil)
    // Outside the lock: removing a watcher rebuilds the routing, which takes it.
    for (core, watcher) in watchers {
      watcher.cancel()
      core.sweepObservers()
    }
    _ = attached  // Released here, outside the lock.
  }

  /// "on SignIn", "command load Profile": what started an effect, for its cause.
  static func describeEffect(_ source: ErrorEvent.Source) -> String {
    switch source {
    case .effect(let actionType): "on \(actionType)"
    default: "\(source)"
    }
  }

  /// The core `store` inspects, while it is on the lane and still inspected by it.
  func inspectedCore(for store: InspectedStore) -> AnyStoreCore? {
    lock.withLock { cores.first { $0.inspectedStore === store } }
  }

  /// The stores on the lane, as an inspector sees them, in lane order.
  func inspectedStores() -> [InspectedStore] {
    lock.withLock { cores.compactMap(\.inspectedStore) }
  }

  /// ``process(_:)`` while an inspector is attached: the same steps, with the store whose
  /// observers are being called kept in `notifyingCore`, so that an action one of them
  /// dispatches names it as its cause. The other paths stay as they are: with no inspector,
  /// nothing here runs.
  func processInspected(boxed action: any Action) {
    ActionPayload.with(boxed: action) { payload in
      currentActionType = payload.type
      refreshRouting()
      let routes = routes(for: payload.id, type: payload.type)
      let extras = lastExtras
      var reduced: [Route] = []
      for route in routes where route.reduce(payload) { reduced.append(route) }
      for route in reduced {
        notifyingCore = route.core
        route.notify()
      }
      notifyingCore = nil
      if let extras { finishStep(action, extras: extras, routes: routes) }
    }
  }
}
