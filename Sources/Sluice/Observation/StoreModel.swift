import Observation

/// An `Observable` projection of a store, for SwiftUI and any other client of the Observation
/// framework (`withObservationTracking`).
///
/// Read the state through the model, path by path: `model.todos`, `model.filter`, or an exact
/// path with `model[\.todos.count]`. A reader is invalidated only when a value it read changes:
/// each path read is tracked with one key-path observer of the store (registered the first time
/// the path is read), and its changes reach the model on the main actor. A model nobody reads
/// costs the store nothing per action.
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
/// Changes reach the model in main-actor hops: one hop applies every change delivered since the
/// previous one, so a reader sees the paths it reads move together. Between an action and the
/// hop that delivers it, the model shows the state before the action; read
/// ``Store/state`` for the store's latest state.
///
/// Send actions with ``dispatch(_:mode:file:line:)`` or ``send(_:file:line:)``, and bind a control to a path and an
/// action with ``binding(_:to:)``.
@MainActor @dynamicMemberLookup
public final class StoreModel<State: Sendable>: Observable {
  /// The store the model projects.
  public let store: Store<State>
  @usableFromInline let registrar = ObservationRegistrar()
  /// The paths read so far, by state key path.
  @usableFromInline var entries: [AnyKeyPath: any AnyModelPath] = [:]
  /// The key-path observers of the paths read; cancelled when the model goes.
  @usableFromInline var subscriptions: [Subscription] = []
  @usableFromInline let mailbox: ModelMailbox

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

  /// The key path that names `path` to the observation registrar. Never read for its value
  /// (the registrar only compares key paths); it reads the store, which is safe from anywhere.
  @usableFromInline
  nonisolated subscript<Value: Sendable>(tracked path: KeyPath<State, Value> & Sendable) -> Value {
    store.state[keyPath: path]
  }

  /// Dispatches `action` to the store (see ``Store/dispatch(_:mode:file:line:)``). The model
  /// shows the change after the main-actor hop that delivers it.
  public func dispatch<A: Action>(
    _ action: A, mode: DispatchMode = .sync, file: StaticString = #fileID, line: UInt = #line
  ) {
    store.dispatch(action, mode: mode, file: file, line: line)
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

  /// A getter and a setter for a control bound to `path`: the getter reads the model (tracked),
  /// the setter dispatches the action `action` makes of the new value.
  ///
  /// ```swift
  /// let query = model.binding(\.query, to: { QueryChanged(query: $0) })
  /// query.set("milk")
  /// ```
  ///
  /// In SwiftUI: `Binding(get: query.get, set: query.set)`.
  public func binding<Value: Equatable & Sendable, A: Action>(
    _ path: KeyPath<State, Value> & Sendable, to action: @escaping @Sendable (Value) -> A
  ) -> ValueBinding<Value> {
    ValueBinding(
      get: { [self] in value(at: path) },
      set: { [store] newValue in store.dispatch(action(newValue)) })
  }

  /// Whether a change delivered to the model waits for its main-actor hop (for tests).
  var hasPendingChanges: Bool { mailbox.hasPending }

  // MARK: - Tracking

  @inlinable
  func value<Value: Equatable & Sendable>(at path: KeyPath<State, Value> & Sendable) -> Value {
    let entry = entries[path] as? ModelPath<State, Value> ?? track(path)
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
      modelKeyPath: \StoreModel<State>.[tracked: path], current: store.state[keyPath: path])
    let mailbox = self.mailbox
    let subscription = store.observe(path) { change in
      entry.receive(change.new)
      mailbox.post(entry)
    }
    // Registered from outside the lane, the observer got the current value before `observe`
    // returned; from inside it, it gets it after the current step (the mailbox delivers it).
    if let registered = entry.takeLatest() { entry.current = registered }
    entries[path] = entry
    subscriptions.append(subscription)
    return entry
  }

  fileprivate func withMutation<Value>(
    of keyPath: KeyPath<StoreModel<State>, Value>, _ body: () -> Void
  ) {
    registrar.withMutation(of: self, keyPath: keyPath, body)
  }
}

/// A getter and a setter for a control bound to a value of a ``StoreModel``: what SwiftUI's
/// `Binding(get:set:)` takes.
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
  /// Publishes the latest value to the model's readers, if it differs (main actor).
  @MainActor func apply(to model: AnyObject)
}

/// One tracked path: the latest value the lane delivered, and the value the model shows.
@usableFromInline
final class ModelPath<State: Sendable, Value: Equatable & Sendable>: AnyModelPath,
  @unchecked Sendable
{
  // @unchecked Sendable: `latest` is touched only under `lock`; `isPosted` only under the
  // mailbox's lock; `current` only on the main actor (by the model); the rest is immutable.
  @usableFromInline let modelKeyPath: KeyPath<StoreModel<State>, Value>
  @usableFromInline let lock = InternalLock()
  @usableFromInline var latest: Value?
  @usableFromInline var isPosted = false
  @usableFromInline var current: Value

  @usableFromInline
  init(modelKeyPath: KeyPath<StoreModel<State>, Value>, current: Value) {
    self.modelKeyPath = modelKeyPath
    self.current = current
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
    guard let model = model as? StoreModel<State>, let value = takeLatest(), value != current
    else { return }
    model.withMutation(of: modelKeyPath) { current = value }
  }
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
    for entry in mailbox.takePending() { entry.apply(to: self) }
  }
}
