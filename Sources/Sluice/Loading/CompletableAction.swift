/// The response half of a request/response pair: an action carrying the result of a load
/// (Mini-Swift's `CompletableAction`).
///
/// ```swift
/// struct LoadCounter: Action { let counter: Int }                    // the request
/// struct CounterLoaded: CompletableAction {                            // the response
///   let result: Result<Int, LoadError>
/// }
/// let reducer = Reducer<TestState>()
///   .on(LoadCounter.self, start: \.counter)
///   .on(CounterLoaded.self, complete: \.counter)
/// let effects = Effects<TestState>()
///   .load(LoadCounter.self, as: CounterLoaded.self) { request, context in
///     try await context.dependencies.counterAPI.counter(request.counter)
///   }
/// ```
///
/// A response that carries no value (Mini-Swift's `EmptyAction`) has the payload ``Done``:
/// `struct VoucherActivated: CompletableAction { let result: Result<Done, LoadError> }`.
///
/// A failed response carries its error (``ErrorCarrying``): dispatching it reports the error on
/// the error channels of the stores that handle it and of the dispatcher, whoever dispatched it.
public protocol CompletableAction: ErrorCarrying {
  /// The value a successful load produces.
  associatedtype Payload: Sendable

  /// The outcome of the load.
  var result: Result<Payload, LoadError> { get }

  /// Creates the response; a struct with a `result` property gets it for free.
  init(result: Result<Payload, LoadError>)
}

extension CompletableAction {
  /// The error of a failed result (the ``LoadError``'s underlying error), `nil` on success.
  public var error: (any Error)? {
    if case .failure(let error) = result { return error.underlying }
    return nil
  }
}

/// A response carrying several results, one per key (Mini-Swift's `KeyedCompletableAction`),
/// merged into a `[Key: Loadable<Payload>]` in the state.
///
/// ```swift
/// struct ContactsLoaded: KeyedCompletableAction {
///   let results: [String: Result<Contact?, LoadError>]
/// }
/// let reducer = Reducer<Phonebook>().on(ContactsLoaded.self, complete: \.contactsByPhone)
/// ```
///
/// A response with failed keys carries one error naming them (``ErrorCarrying``),
/// reported on the error channels like a failed ``CompletableAction``.
public protocol KeyedCompletableAction: ErrorCarrying {
  /// What the results are keyed by.
  associatedtype Key: Hashable & Sendable
  /// The value a successful load produces.
  associatedtype Payload: Sendable

  /// The outcome of each load.
  var results: [Key: Result<Payload, LoadError>] { get }

  /// Creates the response; a struct with a `results` property gets it for free.
  init(results: [Key: Result<Payload, LoadError>])
}

extension KeyedCompletableAction {
  /// One error naming the keys that failed (`"2 of the keyed loads failed: b, c"`), `nil` when
  /// every key succeeded; each key's own error is in its result.
  public var error: (any Error)? {
    var failures: [Key: LoadError] = [:]
    for (key, result) in results {
      if case .failure(let error) = result { failures[key] = error }
    }
    return failures.isEmpty ? nil : KeyedLoadFailure(failures: failures)
  }
}

/// The failed keys of a ``KeyedCompletableAction``, reported as one error (each key's error is
/// also in the state, on its `Loadable`).
struct KeyedLoadFailure<Key: Hashable & Sendable>: Error, Sendable,
  CustomStringConvertible
{
  /// Each failed key and its error.
  let failures: [Key: LoadError]

  /// Creates the error for these failed keys.
  init(failures: [Key: LoadError]) {
    self.failures = failures
  }

  var description: String {
    let keys = failures.keys.map { "\($0)" }.sorted()
    return "\(keys.count) of the keyed loads failed: \(keys.joined(separator: ", "))"
  }
}

extension Result where Failure == LoadError {
  /// The result of running `body`, with any error it throws wrapped in a ``LoadError``.
  public init(loading body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(LoadError(error))
    }
  }
}
