/// A reducer compiled for routing: for each action type the store handles, the ordered list of
/// handlers to run (the typed ones for that type and the catch-alls, in the order they were
/// added), found by slot instead of by trying casts.
@usableFromInline
struct HandlerTable<State>: Sendable {
  @usableFromInline typealias Entry = Reducer<State>.Entry

  /// Slot `i` runs `slots[i]`; slot `-1` runs `catchAll`.
  @usableFromInline let slots: [[Entry]]
  private let slotByType: [ObjectIdentifier: Int]
  @usableFromInline let catchAll: [Entry]

  @usableFromInline
  init(_ reducer: Reducer<State>) {
    var order: [ObjectIdentifier] = []
    for case .typed(let id, _) in reducer.entries where !order.contains(id) { order.append(id) }
    slots = order.map { type in
      reducer.entries.filter { entry in
        switch entry {
        case .typed(let id, _): return id == type
        case .any: return true
        }
      }
    }
    slotByType = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    catchAll = reducer.entries.filter {
      if case .any = $0 { return true }
      return false
    }
  }

  @usableFromInline var handledTypes: [ObjectIdentifier] { Array(slotByType.keys) }
  @usableFromInline var hasCatchAll: Bool { !catchAll.isEmpty }

  func slot(for type: ObjectIdentifier) -> Int? { slotByType[type] }

  /// The slot to use for an action of `type`, or `nil` when no handler matches.
  func resolvedSlot(for type: ObjectIdentifier) -> Int? {
    slotByType[type] ?? (catchAll.isEmpty ? nil : -1)
  }

  @inlinable
  func run(slot: Int, state: inout State, action: any Action) {
    let entries = slot >= 0 && slot < slots.count ? slots[slot] : catchAll
    if entries.isEmpty { return }
    // Typed handlers read the action through a pointer whose type the slot guarantees (the slot
    // was chosen by the action's exact type).
    withPayloadPointer(of: action) { pointer in
      for entry in entries {
        switch entry {
        case .typed(_, let reduce): reduce(&state, pointer)
        case .any(let reduce): reduce(&state, action)
        }
      }
    }
  }
}

/// Calls `body` with a pointer to the value inside `action`.
///
/// Kept free of any state type, so opening the existential costs no metadata look-up.
@inlinable
func withPayloadPointer(of action: any Action, _ body: (UnsafeRawPointer) -> Void) {
  func open<A: Action>(_ opened: borrowing A) {
    withUnsafePointer(to: opened) { body(UnsafeRawPointer($0)) }
  }
  open(action)
}
