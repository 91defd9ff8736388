import Foundation

/// A value that is loaded asynchronously: idle, loading, loaded or failed, with timestamps and
/// user metadata (Mini-Swift's `Promise` and `Task` in one value type).
///
/// A `Loadable` is a plain value inside the state, so a store notices its changes like any
/// other; there is no manual "notify":
///
/// ```swift
/// struct Contacts: Equatable { var list: Loadable<[Contact]> = .idle }
///
/// let reducer = Reducer<Contacts>()
///   .on(LoadContacts.self) { state, _ in state.list.start() }
///   .on(ContactsLoaded.self) { state, action in state.list.complete(with: action.result) }
///
/// if case .loaded(let contacts) = store.state.list.status { show(contacts) }
/// ```
///
/// The latest value survives a reload and a failure: ``value`` still returns it while
/// ``isLoading`` or ``error`` says it is stale, so a screen can keep showing it.
///
/// Two loadables are equal when their status, kept value and metadata are; timestamps are
/// bookkeeping and do not take part (a status change always comes with them).
public struct Loadable<Value: Sendable>: Sendable {
  /// Where the load is.
  public enum Status: Sendable {
    /// Nothing was asked for yet.
    case idle
    /// A load is in flight.
    case loading
    /// The load finished with a value.
    case loaded(Value)
    /// The load failed.
    case failed(LoadError)
  }

  /// Where the load is.
  public private(set) var status: Status
  /// The value kept from an earlier load while reloading or after a failure (internal for
  /// `LoadableReflecting`).
  var kept: Value?
  /// When the current (or last) load started.
  public private(set) var startedAt: Date?
  /// When the last load finished, with a value or an error.
  public private(set) var finishedAt: Date?
  /// Extra facts under typed keys (Mini-Swift's `promise.date`); see ``LoadableMetadata``.
  public var metadata = LoadableMetadata()

  /// An idle loadable.
  public init() {
    status = .idle
  }

  /// Nothing asked for yet.
  public static var idle: Loadable { Loadable() }

  /// A load in flight, keeping `value` from an earlier load, if given.
  public static func loading(keeping value: Value? = nil, since date: Date = Date()) -> Loadable {
    var loadable = Loadable()
    loadable.kept = value
    loadable.start(at: date)
    return loadable
  }

  /// A loaded value.
  public static func loaded(_ value: Value, at date: Date = Date()) -> Loadable {
    var loadable = Loadable()
    loadable.fill(value, at: date)
    return loadable
  }

  /// A failed load; `fallback` is the value to show meanwhile, if any.
  public static func failed(
    _ error: any Error, fallback: Value? = nil, at date: Date = Date()
  ) -> Loadable {
    var loadable = Loadable()
    loadable.fail(error, fallback: fallback, at: date)
    return loadable
  }

  // MARK: - Reading

  /// Whether a load is in flight (Mini-Swift's `isOnProgress` / `isRunning`); for the other
  /// statuses, match ``status``.
  public var isLoading: Bool {
    if case .loading = status { return true }
    return false
  }

  /// The latest value: the loaded one, or the one kept while reloading or after a failure.
  public var value: Value? {
    if case .loaded(let value) = status { return value }
    return kept
  }

  /// The error of the last load, when it failed.
  public var error: LoadError? {
    if case .failed(let error) = status { return error }
    return nil
  }

  // MARK: - Changing

  /// Starts a (re)load: the status becomes loading, and the latest value is kept.
  public mutating func start(at date: Date = Date()) {
    kept = value
    status = .loading
    startedAt = date
    finishedAt = nil
  }

  /// Finishes with a value.
  public mutating func fill(_ value: Value, at date: Date = Date()) {
    kept = nil
    status = .loaded(value)
    if startedAt == nil { startedAt = date }
    finishedAt = date
  }

  /// Finishes with an error. The latest value is kept (or replaced by `fallback`), while the
  /// status stays failed, so the error remains visible ("fill on error").
  public mutating func fail(_ error: any Error, fallback: Value? = nil, at date: Date = Date()) {
    fail(error, keeping: fallback ?? value, at: date)
  }

  /// Finishes with an error, keeping `value` (none when `nil`).
  mutating func fail(_ error: any Error, keeping value: Value?, at date: Date) {
    kept = value
    status = .failed(LoadError(error))
    if startedAt == nil { startedAt = date }
    finishedAt = date
  }

  /// Finishes with a result: ``fill(_:at:)`` on success, ``fail(_:fallback:at:)`` on failure.
  ///
  /// - Parameters:
  ///   - result: The outcome of the load.
  ///   - fallback: On failure, the value to show beside the error instead of the latest one.
  ///   - keepingValueOnFailure: When `false`, a failure forgets the latest value (a `fallback`
  ///     is still shown).
  ///   - date: When the load finished.
  public mutating func complete<Failure: Error>(
    with result: Result<Value, Failure>, fallback: Value? = nil,
    keepingValueOnFailure: Bool = true, at date: Date = Date()
  ) {
    switch result {
    case .success(let value): fill(value, at: date)
    case .failure(let error):
      fail(error, keeping: fallback ?? (keepingValueOnFailure ? value : nil), at: date)
    }
  }

  /// Back to idle: the value, error and timestamps are forgotten; the metadata stays.
  public mutating func reset() {
    status = .idle
    kept = nil
    startedAt = nil
    finishedAt = nil
  }

  /// The same status and timestamps with the value transformed.
  public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Loadable<T> {
    var mapped = Loadable<T>()
    switch status {
    case .idle: mapped.status = .idle
    case .loading: mapped.status = .loading
    case .loaded(let value): mapped.status = .loaded(try transform(value))
    case .failed(let error): mapped.status = .failed(error)
    }
    mapped.kept = try kept.map(transform)
    mapped.startedAt = startedAt
    mapped.finishedAt = finishedAt
    mapped.metadata = metadata
    return mapped
  }
}

extension Loadable: Equatable where Value: Equatable {
  public static func == (lhs: Loadable, rhs: Loadable) -> Bool {
    lhs.status == rhs.status && lhs.kept == rhs.kept && lhs.metadata == rhs.metadata
  }
}

extension Loadable.Status: Equatable where Value: Equatable {}

extension Loadable: CustomStringConvertible {
  public var description: String {
    switch status {
    case .idle: "idle"
    case .loading: kept.map { "loading (keeping \($0))" } ?? "loading"
    case .loaded(let value): "loaded(\(value))"
    case .failed(let error): kept.map { "failed(\(error), keeping \($0))" } ?? "failed(\(error))"
    }
  }
}

/// The value of a load that produces none (Mini-Swift's `Task`, and the payload of its
/// `EmptyAction`): `Loadable<Done>` is `Equatable`, where `Loadable<Void>` could not be.
public struct Done: Sendable, Hashable, CustomStringConvertible {
  /// The value.
  public init() {}

  public var description: String { "done" }
}

/// The status of work that produces no value (Mini-Swift's `AnyTask`).
///
/// ```swift
/// struct Counter: Equatable { var value: Int?; var saving: TaskStatus = .idle }
/// state.saving.start()
/// state.saving.succeed()
/// ```
public typealias TaskStatus = Loadable<Done>

extension Loadable where Value == Done {
  /// Finishes successfully.
  public mutating func succeed(at date: Date = Date()) {
    fill(Done(), at: date)
  }

  /// A successful task.
  public static func succeeded(at date: Date = Date()) -> Loadable { .loaded(Done(), at: date) }
}
