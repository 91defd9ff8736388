// The observers below take any `Delivery`; for `.mainActor` written literally, the overloads
// of Store+MainActor.swift, whose bodies are isolated to the main actor, are preferred
// (`@_disfavoredOverload` here).
extension Store {
  /// Calls `body` with the state after every change.
  ///
  /// When `State` is `Equatable`, only real changes are delivered; otherwise every action the
  /// store handled is. Observers run in registration order, on the lane unless `delivery` says
  /// otherwise; one observer is never called concurrently with itself.
  ///
  /// Called from code running on the store's lane — a reducer, a middleware, an `onAction` tap,
  /// an observer, a transaction — the registration takes effect right after the current step,
  /// before the outermost dispatch returns: `body` first receives the state after that step,
  /// then every later change, and never runs while a reducer holds the store. Called from
  /// anywhere else, it takes effect before `observe` returns (unless the calling thread is
  /// running another lane, which never waits for this one: then as soon as this lane is free).
  ///
  /// ```swift
  /// let subscription = store.observe { state in print(state.counter) }
  /// ```
  ///
  /// - Parameters:
  ///   - delivery: Where `body` runs (default: synchronously on the lane).
  ///   - start: Whether `body` first receives the current state (the default) or only changes.
  ///   - body: The observer.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialized.
  @_disfavoredOverload
  public func observe(
    on delivery: Delivery = .synchronous, from start: ObservationStart = .currentValue,
    _ body: @escaping @Sendable (State) -> Void
  ) -> Subscription {
    addStateObserver(sink: Sink(delivery: delivery, body: body), start: start, ownerGone: nil)
  }

  /// Calls `body` with the old and new value whenever the value at `path` changes.
  ///
  /// Observers of one path share one comparison per action, so the cost of an action does not
  /// grow with the number of observers of other paths, nor with the size of the state. Name
  /// stored properties: a path through a subscript or a computed property is read by the
  /// key-path runtime, some 2,000 instructions per action, and the first such path of a store
  /// is reported as ``ReportedIssue/Kind/slowKeyPath``; observe those values with
  /// ``observe(_:on:from:_:)-(StateSelector<State,Value>,_,_,_)``.
  ///
  /// Called from code running on the store's lane (a reducer, a middleware, an observer…), the
  /// registration takes effect right after the current step, as for ``observe(on:from:_:)-(Delivery,_,_)``:
  /// `body` first receives the value after that step, as both `old` and `new`, then every later
  /// change.
  ///
  /// ```swift
  /// let subscription = store.observe(\.counter) { change in
  ///   print("\(change.old) → \(change.new)")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - path: The observed value; it must be `Equatable`.
  ///   - delivery: Where `body` runs (default: synchronously on the lane).
  ///   - start: Whether `body` first receives the current value, as both `old` and `new`.
  ///   - body: The observer.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialized.
  @inlinable @_disfavoredOverload
  public func observe<Value: Equatable & Sendable>(
    _ path: KeyPath<State, Value> & Sendable, on delivery: Delivery = .synchronous,
    from start: ObservationStart = .currentValue,
    _ body: @escaping @Sendable (Change<Value>) -> Void
  ) -> Subscription {
    addPathObserver(
      sharing: path, read: { $0[keyPath: path] }, makeGroup: { PathGroup(path: path, current: $0) },
      delivery: delivery, start: start, body: body)
  }

  /// Calls `body` with the old and new value whenever the value `selector` reads out of the
  /// state changes: the observation of an element of a collection, as fast as that of a stored
  /// property.
  ///
  /// ```swift
  /// let subscription = store.observe(.select { $0.entries[key] }) { change in
  ///   print("\(change.old) → \(change.new)")
  /// }
  /// ```
  ///
  /// `observe(\.entries[key])` reads the same value, through the key-path runtime: some 2,000
  /// instructions per action for a path through a subscript, where a selector, compiled with
  /// your code, costs about a hundred. Each selector observer compares its own value (observers
  /// of one key path share one comparison). Otherwise it behaves as
  /// ``observe(_:on:from:_:)-(KeyPath<State,Value>Sendable,Delivery,_,_)``: `old` is the value
  /// before the action or transaction, and `body` runs only when the value changed.
  ///
  /// - Parameters:
  ///   - selector: Reads the observed value out of the state.
  ///   - delivery: Where `body` runs (default: synchronously on the lane).
  ///   - start: Whether `body` first receives the current value, as both `old` and `new`.
  ///   - body: The observer.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialized.
  @inlinable
  public func observe<Value: Equatable & Sendable>(
    _ selector: StateSelector<State, Value>, on delivery: Delivery = .synchronous,
    from start: ObservationStart = .currentValue,
    _ body: @escaping @Sendable (Change<Value>) -> Void
  ) -> Subscription {
    let read = selector.read
    return addPathObserver(
      sharing: nil, read: read, makeGroup: { SelectGroup(select: read, current: $0) },
      delivery: delivery, start: start, body: body)
  }

  /// Calls `body` with `owner` and the state after every change, for as long as `owner` lives.
  ///
  /// The store holds `owner` weakly and removes the observer once `owner` is gone, so there is
  /// nothing to keep or cancel (JBFlux's `registerObject:forChangeEvents:`). The returned
  /// subscription can still cancel it early; dropping it does not. To follow one value for as
  /// long as an owner lives, query it in ``react(owner:_:)``: `reaction.on(\.value) { … }`.
  @discardableResult @_disfavoredOverload
  public func observe<Owner: AnyObject & Sendable>(
    owner: Owner, on delivery: Delivery = .synchronous,
    from start: ObservationStart = .currentValue,
    _ body: @escaping @Sendable (Owner, State) -> Void
  ) -> Subscription {
    let gate = Gate()
    return addStateObserver(
      sink: Sink(delivery: delivery, gate: gate) { [weak owner] state in
        guard let owner else { return gate.cancelForGoneOwner() }
        body(owner, state)
      }, start: start, ownerGone: { [weak owner] in owner == nil })
  }

  /// Calls `body` with every action that reaches this store's lane and the state before it was
  /// reduced (Unicore's `onAction`). Meant for debugging; not called on subscription.
  ///
  /// A store with a tap looks at every action, which makes dispatch a little slower.
  public func onAction(
    on delivery: Delivery = .synchronous,
    _ body: @escaping @Sendable (_ action: any Action, _ stateBefore: State) -> Void
  ) -> Subscription {
    watch(.willStep, on: delivery) { event in
      if case .willStep(let action, let before) = event { body(action, before) }
    }
  }

  /// Adds middleware after the existing ones; cancel the subscription to remove it.
  public func use(_ middleware: Middleware<State>) -> Subscription {
    let core = self.core
    let id = Guarded<Int?>(nil)
    core.lane.perform {
      let assigned = core.nextMiddlewareID
      core.nextMiddlewareID += 1
      core.middleware.append((id: assigned, middleware: middleware))
      if core.extrasChanged() { core.lane.rebuildRouting() }
      id.withLock { $0 = assigned }
    }
    // The lane and the core's identity, not the core: a weak reference would give the core a
    // side table and make every reference count on the dispatch path slow.
    return Subscription { [lane = core.lane, coreID = ObjectIdentifier(core)] in
      lane.perform {
        guard let assigned = id.withLock({ $0 }) else { return }
        lane.core(coreID)?.removeMiddleware(id: assigned)
      }
    }
  }

  /// The number of observers registered, not counting owner-bound observers whose owner is
  /// gone; for tests.
  package var observerCount: Int {
    let core = self.core
    return core.lane.performReturning {
      core.sweep()
      return core.registry.count
    } ?? 0
  }

  // MARK: - Registration

  /// Registers a whole-state observer; `ownerGone` is set for owner-bound observers, whose
  /// subscription does not cancel on deinit.
  private func addStateObserver(
    sink: Sink<State>, start: ObservationStart, ownerGone: (@Sendable () -> Bool)?
  ) -> Subscription {
    let core = self.core
    registerObserver {
      guard !sink.gate.isCancelled else { return }
      let observer = StateObserver(
        order: core.registry.takeOrder(), sink: sink, ownerGone: ownerGone)
      core.registry.wholes.append(observer)
      core.registryChanged()
      if start == .currentValue { sink.send(core.current) }
    }
    return subscription(for: sink.gate, cancelsOnDeinit: ownerGone == nil)
  }

  /// Registers an observer of a value read out of the state: in the group of the observers of
  /// `path` (made when there is none), or, with no path, in a group of its own. `makeGroup`
  /// comes from inlinable code, so a new group's comparison is specialized for the concrete
  /// state and value types. The first path of the store that is not made of stored properties
  /// only is reported as ``ReportedIssue/Kind/slowKeyPath``.
  @usableFromInline
  func addPathObserver<Value: Equatable & Sendable>(
    sharing path: (KeyPath<State, Value> & Sendable)?,
    read: @escaping @Sendable (State) -> Value,
    makeGroup: @escaping @Sendable (Value) -> ValueGroup<State, Value>,
    delivery: Delivery, start: ObservationStart,
    body: @escaping @Sendable (Change<Value>) -> Void
  ) -> Subscription {
    let sink = Sink<Change<Value>>(delivery: delivery, body: body)
    let core = self.core
    registerObserver {
      guard !sink.gate.isCancelled else { return }
      let group: ValueGroup<State, Value>
      if let path, let existing = core.registry.groupByPath[path] as? ValueGroup<State, Value> {
        group = existing
      } else {
        group = makeGroup(read(core.current))
        if let path {
          core.registry.groupByPath[path] = group
          if MemoryLayout<State>.offset(of: path) == nil, !core.registry.reportedSlowKeyPath {
            core.registry.reportedSlowKeyPath = true
            core.lane.report(
              .slowKeyPath,
              "Store<\(State.self)>: the observed key path \(path) goes through a subscript, "
                + "a computed property or an optional, so Swift's key-path runtime reads it "
                + "after every action (some 2,000 instructions); observe(.select { $0… }) "
                + "reads the same value with code compiled with yours (reported once per store).")
          }
        }
        core.registry.groups.append(group)
      }
      let observer = PathObserver<State, Value>(
        order: core.registry.takeOrder(), group: group, sink: sink)
      group.members.append(observer)
      core.registryChanged()
      if start == .currentValue {
        // The state now, not `group.last`: mid-step, the group may not have seen this step yet.
        let value = read(core.current)
        sink.send(Change(old: value, new: value))
      }
    }
    return subscription(for: sink.gate, cancelsOnDeinit: true)
  }

  /// Runs the registration of an observer on the lane.
  ///
  /// From code running on this lane, the registration waits until right after the current
  /// step: a reducer or a middleware is mid-way through a step whose notification would skip
  /// an observer that joined during it, after it received a value from before the change; and
  /// a reducer holds the store's lock, under which the observer's first call would run.
  /// Deferred, the observer receives the state after the step, then every later change.
  func registerObserver(_ work: @escaping @Sendable () -> Void) {
    let lane = core.lane
    lane.perform(.query, lane.isCurrentThreadDraining ? .none : .sync, work)
  }

  /// A subscription that cancels `gate`, then has the lane sweep the dead entries out.
  ///
  /// A cancel that gave up waiting for a call running on another thread is reported as
  /// ``ReportedIssue/Kind/cancelWaitedTooLong``.
  ///
  /// It holds the lane and the core's identity, not the core: a weak reference would give the
  /// core a side table and make every reference count on the dispatch path slow; a strong one
  /// would keep the store's state alive.
  func subscription(for gate: Gate, cancelsOnDeinit: Bool) -> Subscription {
    Subscription(cancelsOnDeinit: cancelsOnDeinit) {
      [lane = core.lane, coreID = ObjectIdentifier(core)] in
      let waited = gate.cancel()
      lane.perform(.query, .none) { lane.core(coreID)?.sweepObservers() }
      if !waited {
        lane.reporter.report(Subscription.cancelWaitedTooLong(for: "Store<\(State.self)>"))
      }
    }
  }
}
