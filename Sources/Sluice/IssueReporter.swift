import Foundation

/// Receives the ``ReportedIssue``s a dispatcher and its stores report.
///
/// Every dispatcher has a reporter; by default it is ``IssueReporter/default``, which prints
/// each issue once per source location to standard error. Tests capture issues with
/// ``collecting(into:)``:
///
/// ```swift
/// let log = IssueLog()
/// let dispatcher = Dispatcher(reentrancy: .reject, reporter: .collecting(into: log))
/// // …
/// #expect(log.issues.map(\.kind) == [.reentrantDispatchRejected])
/// ```
public struct IssueReporter: Sendable {
  private let body: @Sendable (ReportedIssue) -> Void

  /// Creates a reporter that hands every issue to `report`, on the thread that found it.
  public init(_ report: @escaping @Sendable (ReportedIssue) -> Void) {
    body = report
  }

  /// Reports an issue.
  public func report(_ issue: ReportedIssue) { body(issue) }

  /// Prints each issue to standard error, once per kind and source location.
  public static let printing = IssueReporter { issue in
    let key = "\(issue.kind)|\(issue.fileID)|\(issue.line)"
    let isNew = printedLocations.withLock { $0.insert(key).inserted }
    guard isNew else { return }
    FileHandle.standardError.write(Data("\(issue)\n".utf8))
  }

  /// Appends every issue to `log`.
  public static func collecting(into log: IssueLog) -> IssueReporter {
    IssueReporter { log.append($0) }
  }

  /// Drops every issue. Prefer ``collecting(into:)`` in tests, so they can assert on them.
  public static let ignoring = IssueReporter { _ in }

  /// The reporter of dispatchers created without one; ``printing`` unless the program sets it.
  public static var `default`: IssueReporter {
    get { defaultReporter.withLock { $0 } }
    set { defaultReporter.withLock { $0 = newValue } }
  }
}

/// A thread-safe list of reported issues, for tests.
public final class IssueLog: @unchecked Sendable {
  // @unchecked Sendable: `storage` is only touched under `lock`.
  private let lock = InternalLock()
  private var storage: [ReportedIssue] = []

  /// Creates an empty log.
  public init() {}

  /// The issues reported so far, oldest first.
  public var issues: [ReportedIssue] { lock.withLock { storage } }

  /// Appends an issue.
  public func append(_ issue: ReportedIssue) { lock.withLock { storage.append(issue) } }

  /// Forgets every issue.
  public func removeAll() { lock.withLock { storage.removeAll() } }
}

private let printedLocations = Guarded<Set<String>>([])
private let defaultReporter = Guarded<IssueReporter>(.printing)
