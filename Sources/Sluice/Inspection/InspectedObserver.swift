/// What observes a store, as an inspector lists it: whole-state observers, key-path observers
/// by their path, selectors and reactions, each with how many are registered.
package struct InspectedObserver: Sendable, Hashable {
  /// What the observers watch.
  package enum Kind: String, Sendable {
    /// The whole state (`observe { state in … }`).
    case wholeState
    /// One key path (`observe(\.items)`): ``InspectedObserver/keyPath`` names it.
    case keyPath
    /// A value a closure selects (`observe(select:)`, a `StateSelector`).
    case selector
    /// Every committed change, queried lazily (reactions, reactors).
    case reaction
  }

  package let kind: Kind
  /// The key path as Swift prints it (`\TodoList.items`), for ``Kind/keyPath``.
  package let keyPath: String?
  /// The path inside the state that the key path reads (`items`, `info.name`), when it reads
  /// stored properties only; `nil` for a computed property or a subscript.
  package let path: String?
  /// How many observers of this kind (and key path) are registered.
  package let count: Int

  package init(kind: Kind, keyPath: String?, path: String?, count: Int) {
    self.kind = kind
    self.keyPath = keyPath
    self.path = path
    self.count = count
  }

  /// `items` for `\TodoList.items` of a `TodoList`; `nil` when the key path goes through a
  /// computed property or a subscript, or does not start with the state type's name.
  static func storedPath(of keyPath: String, stateType: String) -> String? {
    guard !keyPath.contains("<"), !keyPath.contains("["), !keyPath.contains("?"),
      !keyPath.contains("!")
    else { return nil }
    let prefix = "\\" + stateType + "."
    guard keyPath.hasPrefix(prefix) else { return nil }
    let rest = keyPath.dropFirst(prefix.count)
    return rest.isEmpty ? nil : String(rest)
  }
}

extension StoreCore {
  /// The store's live observers, grouped as an inspector lists them (lane only).
  func inspectedObservers() -> [InspectedObserver] {
    var list: [InspectedObserver] = []
    let wholes = registry.wholes.count { !$0.isDead }
    if wholes > 0 {
      list.append(InspectedObserver(kind: .wholeState, keyPath: nil, path: "", count: wholes))
    }
    let stateType = "\(State.self)"
    var byPath: [InspectedObserver] = []
    var pathGroups: Set<ObjectIdentifier> = []
    for (keyPath, group) in registry.groupByPath {
      pathGroups.insert(ObjectIdentifier(group))
      let live = group.members.count { !$0.isDead }
      guard live > 0 else { continue }
      let text = "\(keyPath)"
      byPath.append(
        InspectedObserver(
          kind: .keyPath, keyPath: text,
          path: InspectedObserver.storedPath(of: text, stateType: stateType), count: live))
    }
    list += byPath.sorted { ($0.keyPath ?? "") < ($1.keyPath ?? "") }
    let selectors = registry.groups.filter { !pathGroups.contains(ObjectIdentifier($0)) }
      .reduce(0) { $0 + $1.members.count { !$0.isDead } }
    if selectors > 0 {
      list.append(InspectedObserver(kind: .selector, keyPath: nil, path: nil, count: selectors))
    }
    let reactions = registry.reactors.count { !$0.isDead }
    if reactions > 0 {
      list.append(InspectedObserver(kind: .reaction, keyPath: nil, path: nil, count: reactions))
    }
    return list
  }
}
