import Observation

/// An `Observable` projection of a store, for SwiftUI and any other client of the Observation
/// framework (`withObservationTracking`).
///
/// Read the state through the model, path by path: `model.todos`, `model.filter`, or an exact
/// path with `model[\.todos.count]`. A reader is invalidated only when a value it read changes:
/// each path read is tracked with one key-path observer of the store (registered the first time
/// the path is read, released once the path is no longer read), and its changes reach the model
/// on the main actor. A model nobody reads costs the store nothing per action.
///
/// ```swift
/// @MainActor
/// func makeTodoModel() -> StoreModel<TodoState> {
///   let store = Store(initialState: TodoState(), reducer: todoReducer)
///   return StoreModel(store)
/// }
/// ```
///
/// Reading `model.todos.count` tracks `\.todos` (the model returns the array; `count` is the
/// array's): the reader is invalidated when the array changes. `model[\.todos.count]` tracks the
/// count itself: the reader is invalidated only when the number of todos changes.
///
/// Values that are not `Equatable` (a reference, a closure, a generic value) read the same way.
/// They ride on one whole-state observer per model: after each change of the state, a value whose
/// type is `Equatable` at run time is compared with `==`, and the reader of any other value is
/// invalidated.
///
/// An action sent with ``dispatch(_:file:line:)`` while the lane is free is reduced before
/// `dispatch` returns, and the model shows its result at once. Other changes (actions from other
/// threads, effects, or queued behind another thread) reach the model in main-actor hops: one hop
/// applies every change delivered since the previous one, so a reader sees the paths it reads
/// move together. Until then the model shows the state before them; ``Store/state`` always has
/// the latest.
///
/// A path not read during the model's last 64 updates (main-actor applications of changes) is
/// released: its observer goes, so a `List` scrolled through 10,000 rows keeps observers for the
/// rows read lately only. A reader that read the path since its last change is invalidated
/// first: a view still on screen reads it again (once) and tracks it anew.
///
/// Send actions with ``dispatch(_:file:line:)`` or ``send(_:file:line:)``, and bind a control to
/// a path and an action with ``binding(_:to:)``.
@MainActor @dynamicMemberLookup
public final class StoreModel<State: Sendable>: Observable {
  /// The store the model projects.
  public let store: Store<State>
  @usableFromInline let registrar = ObservationRegistrar()
  /// The paths tracked, by state key path.
  @usableFromInline var entries: [AnyKeyPath: any AnyModelPath] = [:]
  /// The key-path observers of the paths tracked; cancelled when a path is released or the
  /// model goes.
  @usableFromInline var subscriptions: [AnyKeyPath: Subscription] = [:]
  @usableFromInline let mailbox: ModelMailbox
  /// The number of updates so far (applications of changes that took at least one path).
  @usableFromInline var generation = 0
  /// The update at which unread paths were last released.
  var lastRelease = 0
  /// Paths not read during this many updates are released.
  static var releaseAfter: Int { 64 }
  /// For the values the store does not compare: how each is read again after a change of the
  /// state, by state key path.
  var stateReaders: [AnyKeyPath: (StoreModel<State>, State) -> Void] = [:]
  /// The whole-state observer of those values; registered for the first, cancelled after the
  /// last.
  var stateSubscription: Subscription?
  let stateCell = ModelStateCell<State>()

  /// Creates a model of `store`. Nothing is observed until a path is read.
  public init(_ store: Store<State>) {
    self.store = store
    mailbox = ModelMailbox()
    mailbox.model = self
  }

  /// The value at `path`, tracked: the reader is invalidated when it changes.
  @inlinable
  public subscript<Value: Equatable & Sendable>(
    dynamicMember path: KeyPath<State, Value> & Sendable
  ) -> Value {
    value(at: path)
  }

  /// The value at `path`, tracked exactly: `model[\.todos.count]` invalidates its reader only
  /// when the count changes.
  @inlinable
  public subscript<Value: Equatable & Sendable>(_ path: KeyPath<State, Value> & Sendable) -> Value {
    value(at: path)
  }

  /// The value at `path`, which need not be `Equatable`, tracked: after each change of the
  /// state, the reader is invalidated if the value changed (compared with `==` when its type is
  /// `Equatable` at run time) or cannot be compared.
  @_disfavoredOverload
  public subscript<Value: Sendable>(dynamicMember path: KeyPath<State, Value> & Sendable) -> Value {
    self[path]
  }

  /// The value at `path`, which need not be `Equatable`, tracked exactly: after each change of
  /// the state, the reader is invalidated if the value changed (compared with `==` when its type
  /// is `Equatable` at run time) or cannot be compared.
  @_disfavoredOverload
  public subscript<Value: Sendable>(_ path: KeyPath<State, Value> & Sendable) -> Value {
    read(entries[path] as? ModelPath<State, Value> ?? trackWithState(path))
  }

  /// The key path that names `path` to the observation registrar. Never read for its value
  /// (the registrar only compares key paths); it reads the store, which is safe from anywhere.
  @usableFromInline
  nonisolated subscript<Value: Sendable>(tracked path: KeyPath<State, Value> & Sendable) -> Value {
    store.state[keyPath: path]
  }

  /// Dispatches `action` to the store without ever waiting for another thread.
  ///
  /// When the store's lane is free, the action is reduced before `dispatch` returns, as by
  /// ``Store/dispatch(_:mode:file:line:)``, and the model reads the new state at once:
  ///
  /// ```swift
  /// model.dispatch(AddTodo(title: "Buy milk"))
  /// model.todos.count  // 1
  /// ```
  ///
  /// When another thread holds the lane, a lock pauses it, or actions wait in its queue, the
  /// action is queued behind them (as with `mode: .async`) and `dispatch` returns at once: the
  /// main actor never blocks on the lane, so a reducer or an observer on another thread that
  /// waits for the main actor cannot deadlock with it. The model then shows the change in the
  /// main-actor hop that follows its reduction. On a shared lane, where the log orders every
  /// action, the same.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - file: Where the action was dispatched, for an attached inspector; the caller's by
  ///     default.
  ///   - line: The line of that place; the caller's by default.
  public func dispatch<A: Action>(_ action: A, file: StaticString = #fileID, line: UInt = #line) {
    let lane = store.core.lane
    if !lane.isShared, lane.performNow({ ActionPayload.with(action) { lane.process($0) } }) != nil {
      // The model's observers ran on the lane: their values wait in the mailbox.
      applyPendingChanges()
    } else {
      store.dispatch(action, mode: .async, file: file, line: line)
    }
  }

  /// Dispatches `action` and resumes once it was processed (see ``Store/send(_:file:line:)``).
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - file: Where the action was dispatched, for an attached inspector; the caller's by
  ///     default.
  ///   - line: The line of that place; the caller's by default.
  public func send(
    _ action: some Action, file: StaticString = #fileID, line: UInt = #line
  ) async {
    await store.send(action, file: file, line: line)
  }

  /// A getter and a setter for a control bound to `path`: the getter reads the model (tracked,
  /// like a value that need not be `Equatable`),
  /// the setter dispatches the action `action` makes of the new value through
  /// ``dispatch(_:file:line:)``, so the getter returns the new value at once.
  ///
  /// ```swift
  /// let query = model.binding(\.query, to: { QueryChanged(query: $0) })
  /// query.set("milk")
  /// ```
  ///
  /// In SwiftUI: `TextField("Search", text: Binding(query))`.
  public func binding<Value: Sendable, A: Action>(
    _ path: KeyPath<State, Value> & Sendable, to action: @escaping @Sendable (Value) -> A
  ) -> ValueBinding<Value> {
    ValueBinding(
      get: { [self] in self[path] },
      set: { [self] newValue in dispatch(action(newValue)) })
  }

  /// Whether a change delivered to the model waits for its main-actor hop (for tests).
  var hasPendingChanges: Bool { mailbox.hasPending }

  // MARK: - Tracking

  @inlinable
  func value<Value: Equatable & Sendable>(at path: KeyPath<State, Value> & Sendable) -> Value {
    read(entries[path] as? ModelPath<State, Value> ?? track(path))
  }

  /// Marks `entry` read in this update, for the tracking of the caller and for the release of
  /// unread paths, and returns its value.
  @inlinable
  func read<Value: Sendable>(_ entry: ModelPath<State, Value>) -> Value {
    entry.lastRead = generation
    entry.isRead = true
    registrar.access(self, keyPath: entry.modelKeyPath)
    return entry.current
  }

  /// Starts tracking `path`: one key-path observer, synchronous on the lane, that hands each
  /// new value to the mailbox. Inlinable, so the observer runs code specialized for the value.
  @inlinable
  func track<Value: Equatable & Sendable>(_ path: KeyPath<State, Value> & Sendable)
    -> ModelPath<State, Value>
  {
    let entry = ModelPath<State, Value>(
      modelKeyPath: \StoreModel<State>.[tracked: path], current: store.state[keyPath: path],
      isEqual: { $0 == $1 })
    let mailbox = self.mailbox
    let subscription = store.observe(path) { change in
      entry.receive(change.new)
      mailbox.post(entry)
    }
    // Registered from outside the lane, the observer got the current value before `observe`
    // returned; from inside it, it gets it after the current step (the mailbox delivers it).
    if let registered = entry.takeLatest() { entry.current = registered }
    entries[path] = entry
    subscriptions[path] = subscription
    return entry
  }

  /// Starts tracking `path`, whose value the store cannot compare, through the model's
  /// whole-state observer (registered first, so no change after the value is read is missed).
  @usableFromInline
  func trackWithState<Value: Sendable>(_ path: KeyPath<State, Value> & Sendable)
    -> ModelPath<State, Value>
  {
    if stateSubscription == nil {
      let cell = stateCell
      let mailbox = self.mailbox
      stateSubscription = store.observe { state in
        cell.receive(state)
        mailbox.post(cell)
      }
      // As in `track`: the state the observer got at once is read below.
      _ = cell.takeLatest()
    }
    let isEqual: ((Value, Value) -> Bool)? =
      Value.self is any Equatable.Type ? { equalValues($0, $1) } : nil
    let entry = ModelPath<State, Value>(
      modelKeyPath: \StoreModel<State>.[tracked: path], current: store.state[keyPath: path],
      isEqual: isEqual)
    entries[path] = entry
    stateReaders[path] = { model, state in entry.publish(state[keyPath: path], to: model) }
    return entry
  }

  /// Reads again, in `state`, every value the store does not compare (a change of the state
  /// reached the model).
  func applyState(_ state: State) {
    for reader in stateReaders.values { reader(self, state) }
  }

  /// Every ``releaseAfter`` updates, releases the paths not read during the last ones: their
  /// observers are cancelled, then the readers that may still track one (it was read since its
  /// last change) are invalidated, so a reader still shown reads it again and tracks it anew.
  func releaseUnreadPaths() {
    guard generation &- lastRelease >= Self.releaseAfter else { return }
    lastRelease = generation
    let unread = entries.filter { generation &- $0.value.lastRead >= Self.releaseAfter }
    guard !unread.isEmpty else { return }
    var cancelled: [Subscription] = []
    for path in unread.keys {
      entries[path] = nil
      stateReaders[path] = nil
      if let subscription = subscriptions.removeValue(forKey: path) {
        cancelled.append(subscription)
      }
    }
    if stateReaders.isEmpty, let subscription = stateSubscription {
      stateSubscription = nil
      cancelled.append(subscription)
    }
    for subscription in cancelled { subscription.cancel() }
    for entry in unread.values { entry.release(from: self) }
  }

  fileprivate func withMutation<Value>(
    of keyPath: KeyPath<StoreModel<State>, Value>, _ body: () -> Void
  ) {
    registrar.withMutation(of: self, keyPath: keyPath, body)
  }
}

/// A getter and a setter for a control bound to a value of a ``StoreModel``. With SwiftUI,
/// `Binding(valueBinding)` makes a SwiftUI `Binding` of it.
public struct ValueBinding<Value: Sendable>: Sendable {
  /// Reads the value (tracked, like reading the model).
  public let get: @MainActor @Sendable () -> Value
  /// Dispatches the action that sets the value.
  public let set: @MainActor @Sendable (Value) -> Void
}

/// One tracked path of a model, as its mailbox sees it.
@usableFromInline
protocol AnyModelPath: AnyObject, Sendable {
  /// Whether the path is in the mailbox's pending list (under the mailbox's lock).
  var isPosted: Bool { get set }
  /// The update during which the path was last read (main actor).
  @MainActor var lastRead: Int { get }
  /// Publishes the latest value to the model's readers, if it differs (main actor).
  @MainActor func apply(to model: AnyObject)
  /// Marks the path released and invalidates its readers if it was read since its last change
  /// (main actor).
  @MainActor func release(from model: AnyObject)
}

/// One tracked path: the latest value the lane delivered, and the value the model shows.
@usableFromInline
final class ModelPath<State: Sendable, Value: Sendable>: AnyModelPath, @unchecked Sendable {
  // @unchecked Sendable: `latest` is touched only under `lock`; `isPosted` only under the
  // mailbox's lock; `current`, `lastRead`, `isRead` and `isReleased` only on the main actor (by
  // the model); the rest is immutable.
  @usableFromInline let modelKeyPath: KeyPath<StoreModel<State>, Value>
  /// `==` for the value, `nil` when it cannot be compared (every new value is then a change).
  @usableFromInline let isEqual: ((Value, Value) -> Bool)?
  @usableFromInline let lock = InternalLock()
  @usableFromInline var latest: Value?
  @usableFromInline var isPosted = false
  @usableFromInline var current: Value
  /// The model's update during which the path was last read.
  @usableFromInline var lastRead = 0
  /// Whether the path was read since its last change was published (a reader may track it).
  @usableFromInline var isRead = false
  /// Whether the model let the path go (a change still in the mailbox is then dropped).
  var isReleased = false

  @usableFromInline
  init(
    modelKeyPath: KeyPath<StoreModel<State>, Value>, current: Value,
    isEqual: ((Value, Value) -> Bool)?
  ) {
    self.modelKeyPath = modelKeyPath
    self.current = current
    self.isEqual = isEqual
  }

  /// Keeps the newest value from the lane (any thread). The value it replaces goes after the
  /// lock: its `deinit` may call back into this path.
  @inlinable
  func receive(_ value: Value) {
    var replaced: Value? = value
    lock.lock()
    swap(&latest, &replaced)
    lock.unlock()
    withExtendedLifetime(replaced) {}
  }

  @usableFromInline
  func takeLatest() -> Value? {
    lock.withLock {
      defer { latest = nil }
      return latest
    }
  }

  @usableFromInline @MainActor func apply(to model: AnyObject) {
    guard let model = model as? StoreModel<State>, let value = takeLatest() else { return }
    publish(value, to: model)
  }

  /// Shows `value` to the model's readers, invalidating them, unless it equals the value shown.
  @MainActor func publish(_ value: Value, to model: StoreModel<State>) {
    if isReleased || isEqual?(value, current) == true { return }
    isRead = false
    model.withMutation(of: modelKeyPath) { current = value }
  }

  @usableFromInline @MainActor func release(from model: AnyObject) {
    isReleased = true
    guard isRead, let model = model as? StoreModel<State> else { return }
    model.withMutation(of: modelKeyPath) {}
  }
}

/// The latest state a model's whole-state observer received, for the values the store does not
/// compare; posted to the mailbox like a path.
final class ModelStateCell<State: Sendable>: AnyModelPath, @unchecked Sendable {
  // @unchecked Sendable: `latest` is guarded; `isPosted` is touched only under the mailbox's
  // lock.
  private let latest = Guarded<State?>(nil)
  var isPosted = false
  /// Never released by the sweep: the model cancels its observer with its last reader.
  let lastRead = Int.max

  /// Keeps the newest state (any thread); the state it replaces goes after the lock.
  func receive(_ state: State) {
    let replaced = latest.withLock { latest in
      defer { latest = state }
      return latest
    }
    withExtendedLifetime(replaced) {}
  }

  func takeLatest() -> State? { latest.withLock { $0.take() } }

  @MainActor func apply(to model: AnyObject) {
    guard let model = model as? StoreModel<State>, let state = takeLatest() else { return }
    model.applyState(state)
  }

  @MainActor func release(from model: AnyObject) {}
}

/// The changes a model's paths received on the lane, waiting for their main-actor hop: one hop
/// for everything posted since the previous one.
@usableFromInline
final class ModelMailbox: @unchecked Sendable {
  // @unchecked Sendable: `pending` and `scheduled` are touched only under `lock`; `model` is
  // weak and set once, before any post.
  private let lock = InternalLock()
  private var pending: [any AnyModelPath] = []
  private var scheduled = false
  weak var model: (any PendingApplying)?

  var hasPending: Bool { lock.withLock { !pending.isEmpty || scheduled } }

  /// Queues `entry` for the next hop, scheduling the hop unless one is pending (any thread).
  @usableFromInline
  func post(_ entry: any AnyModelPath) {
    let mustSchedule = lock.withLock { () -> Bool in
      if !entry.isPosted {
        entry.isPosted = true
        pending.append(entry)
      }
      defer { scheduled = true }
      return !scheduled
    }
    guard mustSchedule else { return }
    Task { @MainActor [weak self] in self?.model?.applyPendingChanges() }
  }

  /// Takes every posted entry; the next post schedules a new hop.
  func takePending() -> [any AnyModelPath] {
    lock.withLock {
      let taken = pending
      pending.removeAll()
      scheduled = false
      for entry in taken { entry.isPosted = false }
      return taken
    }
  }
}

/// A model whose mailbox hops to it (lets the non-generic mailbox call the generic model).
@MainActor protocol PendingApplying: AnyObject {
  /// Applies every change delivered since the last hop.
  func applyPendingChanges()
}

extension StoreModel: PendingApplying {
  func applyPendingChanges() {
    let taken = mailbox.takePending()
    guard !taken.isEmpty else { return }
    generation &+= 1
    for entry in taken { entry.apply(to: self) }
    releaseUnreadPaths()
  }
}
