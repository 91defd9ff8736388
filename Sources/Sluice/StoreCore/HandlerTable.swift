/// A reducer compiled for routing: for each action type the store handles, the ordered list of
/// handlers to run (the typed ones for that type and the catch-alls, in the order they were
/// added), found by slot instead of by trying casts.
@usableFromInline
struct HandlerTable<State: Sendable>: Sendable {
  /// Slot `i` runs `slots[i]`; slot `-1` (or any other) runs `catchAll`. Held unmanaged, so the
  /// hot path follows them without reference counting; `owned` keeps them alive.
  @usableFromInline let slots: [Unmanaged<SlotHandlers<State>>]
  @usableFromInline let catchAll: Unmanaged<SlotHandlers<State>>
  private let owned: [SlotHandlers<State>]
  private let slotByType: [ObjectIdentifier: Int]
  @usableFromInline let hasCatchAll: Bool

  @usableFromInline
  init(_ reducer: Reducer<State>) {
    var order: [ObjectIdentifier] = []
    for case .typed(let id, _) in reducer.entries where !order.contains(id) { order.append(id) }
    let typed = order.map { type in
      SlotHandlers(
        reducer.entries.filter { if case .typed(let id, _) = $0 { id == type } else { true } })
    }
    let catchAllEntries = reducer.entries.filter { if case .any = $0 { true } else { false } }
    let catchAllHandlers = SlotHandlers(catchAllEntries)
    owned = typed + [catchAllHandlers]
    slots = typed.map { Unmanaged.passUnretained($0) }
    catchAll = Unmanaged.passUnretained(catchAllHandlers)
    hasCatchAll = !catchAllEntries.isEmpty
    slotByType = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
  }

  @usableFromInline var handledTypes: [ObjectIdentifier] { Array(slotByType.keys) }

  func slot(for type: ObjectIdentifier) -> Int? { slotByType[type] }

  /// The slot to use for an action of `type`, or `nil` when no handler matches.
  func resolvedSlot(for type: ObjectIdentifier) -> Int? {
    slotByType[type] ?? (hasCatchAll ? -1 : nil)
  }

  /// Runs the handlers of `slot` on `state` for the action `payload` points at.
  @inlinable @inline(__always)
  func run(slot: Int, state: inout State, payload: ActionPayload) {
    let handlers = slot >= 0 && slot < slots.count ? slots[slot] : catchAll
    handlers._withUnsafeGuaranteedRef { handlers in
      if handlers.hasSingle {
        handlers.single(&state, payload.pointer)
      } else {
        handlers.runEach(&state, payload)
      }
    }
  }

  /// ``run(slot:state:payload:)`` for an action boxed in an `any Action`.
  func run(slot: Int, state: inout State, action: any Action) {
    ActionPayload.with(boxed: action) { run(slot: slot, state: &state, payload: $0) }
  }
}

/// The handlers of one slot, in the order they were added.
@usableFromInline
final class SlotHandlers<State: Sendable>: Sendable {
  @usableFromInline typealias Entry = Reducer<State>.Entry

  /// The slot's only handler, when it has exactly one and that one is typed: the fast path.
  @usableFromInline let single: @Sendable (inout State, UnsafeRawPointer) -> Void
  /// Whether `single` is the slot's only handler (otherwise it does nothing).
  @usableFromInline let hasSingle: Bool
  @usableFromInline let entries: [Entry]

  init(_ entries: [Entry]) {
    self.entries = entries
    if entries.count == 1, case .typed(_, let reduce) = entries[0] {
      single = reduce
      hasSingle = true
    } else {
      single = { _, _ in }
      hasSingle = false
    }
  }

  /// Runs every handler of the slot. Typed handlers read the action through the pointer, whose
  /// type the slot guarantees (the slot was chosen by the action's exact type); catch-alls get
  /// it boxed, once.
  @inlinable @inline(never)
  func runEach(_ state: inout State, _ payload: ActionPayload) {
    var boxed: (any Action)?
    for entry in entries {
      switch entry {
      case .typed(_, let reduce): reduce(&state, payload.pointer)
      case .any(let reduce):
        let action = boxed ?? payload.boxed()
        boxed = action
        reduce(&state, action)
      }
    }
  }
}
