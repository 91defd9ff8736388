/// The observer behind `store.react`: called on every committed step of its store, it checks
/// its queries (learned when it was attached) and calls the handler when one changed.
final class Reactor<State: Sendable>: AnyObserver<State>, @unchecked Sendable {
  // @unchecked Sendable: everything mutable is touched on the lane only.
  private weak var store: Store<State>?
  private let lane: Lane
  private let coreID: ObjectIdentifier
  /// Calls the user's handler; returns `false` when its owner is gone.
  private let handler: @Sendable (Reaction<State>) -> Bool
  /// The key-path queries in the order they were first asked. A reactor asks the same few
  /// queries each time, with literal key paths (the same objects each time), so a linear scan
  /// comparing identities first beats hashing key paths.
  private var queries: [Query] = []
  private var ignoredPaths: [AnyKeyPath] = []

  /// A class, not a struct: this code is generic over `State` and not specialized, and reading
  /// a generic struct out of an array there allocates a coroutine frame per access.
  final class Query {
    let path: AnyKeyPath
    let group: AnyPathGroup<State>
    var changed = false

    init(path: AnyKeyPath, group: AnyPathGroup<State>) {
      self.path = path
      self.group = group
    }
  }
  private var dotted: [String: DottedQuery] = [:]
  /// Dotted paths that named nothing when first asked: reported once, then ignored.
  private var unknownDotted: Set<String> = []
  private var tree: StateValue?
  /// Whether `.unencodableState` was reported already.
  private var reportedUnencodable = false

  struct DottedQuery {
    /// The value at the path after the last step, `_` properties included: a change hands
    /// out whole values, so that the parent of a `_` property still decodes.
    var last: StateValue
    /// `last` without its `_` properties: what the steps compare, since a change of a `_`
    /// property alone is no change.
    var lastCompared: StateValue
    var change: (old: StateValue, new: StateValue)?

    init(last: StateValue) {
      self.last = last
      lastCompared = last.removingUnderscoredKeys()
    }
  }

  init(
    order: Int, store: Store<State>, gate: Gate, ownerGone: (@Sendable () -> Bool)?,
    handler: @escaping @Sendable (Reaction<State>) -> Bool
  ) {
    self.store = store
    lane = store.core.lane
    coreID = ObjectIdentifier(store.core)
    self.handler = handler
    super.init(order: order, gate: gate, ownerGone: ownerGone) { observer, state in
      unsafeDowncast(observer, to: Reactor<State>.self).react(to: state)
    }
  }

  /// The store: the object the reactor was attached through while anybody holds it, else the
  /// dispatcher's object around the core of a registered store (see ``Dispatcher/store(_:)``).
  var currentStore: Store<State>? {
    if let store { return store }
    guard let found = lane.dispatcher?.store(State.self), ObjectIdentifier(found.core) == coreID
    else { return nil }
    return found
  }

  private var hasQueries: Bool { !queries.isEmpty || !dotted.isEmpty || !ignoredPaths.isEmpty }

  /// Calls the handler once in discovery mode, to learn its queries (lane only).
  func discover(_ state: UnsafePointer<State>) {
    let reaction = Reaction(reactor: self, state: state, lock: nil, isDiscovery: true)
    var alive = true
    _ = gate.run { alive = handler(reaction) }
    reaction.invalidate()
    if !alive { gate.cancel() }
  }

  /// Checks the queries against the state at `state`, and calls the handler when one changed
  /// (or, without queries, on every committed step).
  func react(to state: UnsafePointer<State>) {
    // The encoded tree is valid for this step only.
    tree = nil
    defer { tree = nil }
    var changed = false
    for query in queries {
      query.changed = query.group.check(query.group, state)
      if query.changed { changed = true }
    }
    if !dotted.isEmpty, let tree = encode(state) {
      self.tree = tree
      for (path, var query) in dotted {
        let value = tree[path: path]
        let compared = value.removingUnderscoredKeys()
        if compared != query.lastCompared {
          query.change = (query.last, value)
          query.lastCompared = compared
          changed = true
        } else {
          query.change = nil
        }
        query.last = value
        dotted[path] = query
      }
    }
    // A reactor without queries hears about every committed step.
    guard changed || !hasQueries else { return }
    let reaction = Reaction(reactor: self, state: state, lock: lane.currentLock, isDiscovery: false)
    var alive = true
    _ = gate.run { alive = handler(reaction) }
    reaction.invalidate()
    if !alive { gate.cancel() }
  }

  // MARK: - Queries

  /// The change at `path` in this step, if any; registers the query when it is new.
  func change<Value: Equatable & Sendable>(
    at path: KeyPath<State, Value>, in state: UnsafePointer<State>?, discovering: Bool
  ) -> Change<Value>? {
    if let query = query(for: path) {
      guard !discovering, query.changed else { return nil }
      return (query.group as? PathGroup<State, Value>)?.cell.change
    }
    for ignored in ignoredPaths where ignored === path || ignored == path { return nil }
    guard let state else { return nil }
    if Self.isInternal(path) {
      ignoredPaths.append(path)
      return nil
    }
    queries.append(
      Query(path: path, group: PathGroup(path: path, current: state.pointee[keyPath: path])))
    return nil
  }

  /// The change at a dotted path in this step, if any; registers the query when it is new.
  func dynamicChange(
    at path: String, discovering: Bool, file: StaticString, line: UInt
  ) -> DynamicChange? {
    if let query = dotted[path] {
      guard !discovering, let change = query.change, let store else { return nil }
      return DynamicChange(path: path, store: store, old: change.old, new: change.new)
    }
    // `_` properties never report changes: a path through one names nothing, and the steps
    // compare values without them.
    if unknownDotted.contains(path) { return nil }
    if path.split(separator: ".").contains(where: { $0.hasPrefix("_") }) { return nil }
    guard let store else { return nil }
    guard let encodable = store.core.current as? any Encodable,
      let (current, open) = try? StateValueEncoder().encodeMarkingOpen(encodable)
    else {
      reportUnencodable()
      return nil
    }
    guard current.mayContain(path: path, open: open) else {
      unknownDotted.insert(path)
      lane.report(
        .unknownPath,
        "the dotted path '\(path)' names nothing in Store<\(State.self)>'s state; "
          + "the query is ignored.", file: file, line: line)
      return nil
    }
    dotted[path] = DottedQuery(last: current[path: path])
    return nil
  }

  private func encode(_ state: UnsafePointer<State>) -> StateValue? {
    if let tree { return tree }
    guard let encodable = state.pointee as? any Encodable else {
      reportUnencodable()
      return nil
    }
    do {
      return try StateValueEncoder().encode(encodable)
    } catch {
      reportUnencodable(error)
      return nil
    }
  }

  /// Reports a reaction used after the call it was made for; it answered nothing.
  func reportUseAfterCall(_ use: String, file: StaticString, line: UInt) {
    lane.report(
      .reactionUsedAfterItsCall,
      "a Reaction<\(State.self)> was used (\(use)) after the reactor call it was "
        + "made for returned; it answered nothing. Copy what you need out of the call.", file: file,
      line: line)
  }

  private func reportUnencodable(_ error: (any Error)? = nil) {
    guard !reportedUnencodable else { return }
    reportedUnencodable = true
    let reason = error.map { " could not be encoded: \($0)" } ?? " is not Encodable"
    lane.report(
      .unencodableState,
      "dotted-path reactions need an encodable state; Store<\(State.self)>'s"
        + reason + ".")
  }

  private func query(for path: AnyKeyPath) -> Query? {
    for query in queries where query.path === path { return query }
    for query in queries where query.path == path { return query }
    return nil
  }

  /// Whether a key path goes through a property whose name starts with `_`.
  private static func isInternal(_ path: AnyKeyPath) -> Bool {
    "\(path)".split(separator: ".").dropFirst().contains { $0.hasPrefix("_") }
  }
}

extension StateValue {
  /// The value without the properties whose name starts with `_`, at every depth.
  func removingUnderscoredKeys() -> StateValue {
    switch self {
    case .object(let object):
      guard
        object.keys.contains(where: { $0.hasPrefix("_") })
          || object.values.contains(where: \.hasNested)
      else { return self }
      var kept: [String: StateValue] = [:]
      for (key, value) in object where !key.hasPrefix("_") {
        kept[key] = value.removingUnderscoredKeys()
      }
      return .object(kept)
    case .array(let array):
      guard array.contains(where: \.hasNested) else { return self }
      return .array(array.map { $0.removingUnderscoredKeys() })
    case .null, .bool, .int, .double, .string:
      return self
    }
  }

  /// Whether this is an object or an array, which may hold `_` properties.
  private var hasNested: Bool {
    switch self {
    case .object, .array: true
    case .null, .bool, .int, .double, .string: false
    }
  }

  /// Whether the dotted path names something now, or may later: it goes through an open
  /// container (a dictionary, a `StateValue`), a `nil` optional, or an array (which may grow).
  /// A missing property of a struct, or a step into a number or a string, never will.
  func mayContain(path: String, open: Set<String>) -> Bool {
    var value = self
    var prefix = ""
    for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
      if open.contains(prefix) { return true }
      guard let child = value.child(String(segment)) else {
        switch value {
        case .null, .array: return true
        default: return false
        }
      }
      value = child
      prefix = prefix.isEmpty ? String(segment) : prefix + "." + segment
    }
    return true
  }
}
