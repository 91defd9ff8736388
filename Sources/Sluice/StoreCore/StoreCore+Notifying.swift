// Notifying: after a step, the lane compares the observed values with the last ones and
// calls the observers whose value changed, in registration order.
extension StoreCore {

  @inlinable
  func notify() {
    if !changeWatchers.isEmpty {
      tellChanged()
      // A store whose only "observer" is its persistence: nothing else to look at.
      if registry.isEmpty { return }
    }
    // Everything reads the lane's own copy of the state in place: no copy per step (a large
    // state would otherwise be copied for every action).
    withUnsafePointer(to: &current) { state in
      var wholeChanged = !registry.wholes.isEmpty
      // `pendingOld` is set only when the state is comparable (`needsOld`); cleared only then,
      // as writing `nil` over a large state costs as much as the state's size.
      if needsOld {
        if wholeChanged, let old = pendingOld { wholeChanged = !equals(old, state.pointee) }
        pendingOld = nil
      }
      let raw = UnsafeRawPointer(state)
      compare(&registry.wordSlots, in: state) { slot in
        raw.loadUnaligned(fromByteOffset: slot.offset, as: UInt64.self)
      }
      compare(&registry.narrowSlots, in: state) { slot in
        WordSlot<State>.read(raw, offset: slot.offset, width: slot.width)
      }
      for group in registry.groupRefs {
        let changed = group._withUnsafeGuaranteedRef { $0.check($0, state) }
        if changed { changedGroups.append(group.takeUnretainedValue()) }
      }
      let hasReactors = !registry.reactors.isEmpty
      if changedGroups.isEmpty, !hasReactors {
        if wholeChanged, fire(registry.wholesInPlace, with: state) { sweep() }
        return
      }
      let sources = changedGroups.count + (wholeChanged ? 1 : 0) + (hasReactors ? 1 : 0)
      if sources == 1, let group = changedGroups.first {
        // One path changed, and nothing else fires: its observers are in order already.
        changedGroups.removeAll(keepingCapacity: true)
        if group.members.withUnsafeBufferPointer({ fire($0, with: state) }) { sweep() }
        return
      }
      if wholeChanged { append(registry.wholes, to: &fired) }
      if hasReactors { append(registry.reactors, to: &fired) }
      for group in changedGroups { append(group.members, to: &fired) }
      changedGroups.removeAll(keepingCapacity: true)
      // Each source is in registration order already; merge them when there are several.
      if sources > 1 { fired.sort { $0.order < $1.order } }
      let list = fired
      if list.withUnsafeBufferPointer({ fire($0, with: state) }) { sweep() }
      fired.removeAll(keepingCapacity: true)  // `list` is gone: keeps the buffer.
    }
  }

  /// Compares the bytes `read` gets for each slot with those it saw last; a group whose bytes
  /// differ computes its change (`old`, `new`) and joins ``changedGroups``. Skipped when there
  /// are no slots: making the empty array's storage mutable would allocate.
  @inlinable @inline(__always)
  func compare(
    _ slots: inout [WordSlot<State>], in state: UnsafePointer<State>,
    read: (WordSlot<State>) -> UInt64
  ) {
    guard !slots.isEmpty else { return }
    slots.withUnsafeMutableBufferPointer { slots in
      for index in slots.indices {
        let bytes = read(slots[index])
        if bytes == slots[index].last { continue }
        slots[index].last = bytes
        slots[index].group._withUnsafeGuaranteedRef { group in
          group.wordLast = bytes
          _ = group.check(group, state)
        }
        changedGroups.append(slots[index].group.takeUnretainedValue())
      }
    }
  }

  /// Appends `observers` to `list` one by one: `append(contentsOf:)` would look up the metadata
  /// of the generic collection it is given on every action.
  @inlinable
  func append(_ observers: [AnyObserver<State>], to list: inout [AnyObserver<State>]) {
    for observer in observers { list.append(observer) }
  }

  /// Calls the observers in `buffer` (an array read in place) in order; returns whether to sweep.
  /// Nothing changes the array meanwhile (lane registrations are queued; no sweep while
  /// `firing`). One observer is called inline: 30 instructions fewer than `fireEach`.
  @inlinable @inline(__always)
  func fire(_ buffer: UnsafeBufferPointer<AnyObserver<State>>, with state: UnsafePointer<State>)
    -> Bool
  {
    guard buffer.count == 1 else { return fireEach(buffer, with: state) }
    var needsSweep = false
    firing &+= 1
    call(
      Unmanaged.passUnretained(buffer[0]), with: state, boundary: roundBoundary,
      needsSweep: &needsSweep)
    firing &-= 1
    return needsSweep
  }

  @inlinable
  func fireEach(
    _ buffer: UnsafeBufferPointer<AnyObserver<State>>, with state: UnsafePointer<State>
  ) -> Bool {
    var needsSweep = false
    firing &+= 1
    // Read once: no step of this store starts while its observers run.
    let boundary = roundBoundary
    for index in buffer.indices {
      call(
        Unmanaged.passUnretained(buffer[index]), with: state, boundary: boundary,
        needsSweep: &needsSweep)
    }
    firing &-= 1
    return needsSweep
  }

  /// Calls `observer` unless it joined during this step (at or after `boundary`) or is dead;
  /// sets `needsSweep` when it is dead or got cancelled.
  @inlinable @inline(__always)
  func call(
    _ observer: Unmanaged<AnyObserver<State>>, with state: UnsafePointer<State>, boundary: Int,
    needsSweep: inout Bool
  ) {
    observer._withUnsafeGuaranteedRef { observer in
      guard observer.order < boundary else { return }
      // A whole-state observer without an owner: its gate alone says whether it is dead,
      // before or during the call.
      if let sink = observer.stateSink, observer.ownerGone == nil {
        if !sink._withUnsafeGuaranteedRef({ $0.sendReportingLive(state.pointee) }) {
          needsSweep = true
        }
        return
      }
      if observer.isDead {
        needsSweep = true
        return
      }
      if let sink = observer.stateSink {
        sink._withUnsafeGuaranteedRef { $0.send(state.pointee) }
      } else {
        observer.fire(state)
      }
      if observer.gate.isCancelled { needsSweep = true }
    }
  }

  /// Removes cancelled observers (lane only); not while a `fire` loop walks the registry's arrays
  /// (``ObserverRegistry/count`` leaves the dead ones out till the next sweep).
  @usableFromInline
  func sweep() {
    guard firing == 0 else { return }
    registry.sweep()
    registryChanged()
  }
}
