/// A reducer compiled for routing: for each action type the store handles, the ordered list of
/// handlers to run (the typed ones for that type and the catch-alls, in the order they were
/// added), found by slot instead of by trying casts.
struct HandlerTable<State>: Sendable {
  typealias Entry = Reducer<State>.Entry

  /// Slot `i` runs `slots[i]`; slot `-1` runs `catchAll`.
  private let slots: [[Entry]]
  private let slotByType: [ObjectIdentifier: Int]
  private let catchAll: [Entry]

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

  var handledTypes: [ObjectIdentifier] { Array(slotByType.keys) }
  var hasCatchAll: Bool { !catchAll.isEmpty }

  func slot(for type: ObjectIdentifier) -> Int? { slotByType[type] }

  /// The slot to use for an action of `type`, or `nil` when no handler matches.
  func resolvedSlot(for type: ObjectIdentifier) -> Int? {
    slotByType[type] ?? (catchAll.isEmpty ? nil : -1)
  }

  @inline(__always)
  func run(slot: Int, state: inout State, action: any Action) {
    let entries = slot >= 0 && slot < slots.count ? slots[slot] : catchAll
    if entries.isEmpty { return }
    // Open the existential once; typed handlers read the action through a pointer whose type the
    // slot guarantees (the slot was chosen by the action's exact type).
    func open<A: Action>(_ opened: A) {
      withUnsafePointer(to: opened) { pointer in
        for entry in entries {
          switch entry {
          case .typed(_, let reduce): reduce(&state, UnsafeRawPointer(pointer))
          case .any(let reduce): reduce(&state, action)
          }
        }
      }
    }
    open(action)
  }
}
