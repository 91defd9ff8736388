import Foundation

/// Receives the ``ReportedIssue``s a dispatcher and its stores report.
///
/// Every dispatcher has a reporter; by default it is ``IssueReporter/default``, which prints
/// each issue once per source location to standard error. Tests capture issues with
/// ``collecting()``:
///
/// ```swift
/// let log = IssueReporter.collecting()
/// let dispatcher = Dispatcher(reentrancy: .reject, reporter: log)
/// // …
/// #expect(log.issues.map(\.kind) == [.reentrantDispatchRejected])
/// ```
public struct IssueReporter: Sendable {
  private let body: @Sendable (ReportedIssue) -> Void
  /// The issues kept by a collecting reporter (and its copies); `nil` for the others.
  private let collected: Guarded<[ReportedIssue]>?

  /// Creates a reporter that hands every issue to `report`, on the thread that found it.
  public init(_ report: @escaping @Sendable (ReportedIssue) -> Void) {
    body = report
    collected = nil
  }

  private init(collecting collected: Guarded<[ReportedIssue]>) {
    body = { issue in collected.withLock { $0.append(issue) } }
    self.collected = collected
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

  /// A reporter that keeps every issue, for tests to read as ``issues``; its copies share them.
  public static func collecting() -> IssueReporter {
    IssueReporter(collecting: Guarded([]))
  }

  /// The issues a ``collecting()`` reporter kept so far, oldest first; empty for the others.
  public var issues: [ReportedIssue] { collected?.withLock { $0 } ?? [] }

  /// Forgets the issues a ``collecting()`` reporter kept.
  public func clearIssues() { collected?.withLock { $0.removeAll() } }

  /// Drops every issue. Prefer ``collecting()`` in tests, so they can assert on them.
  public static let ignoring = IssueReporter { _ in }

  /// The reporter of dispatchers created without one; ``printing`` unless the program sets it.
  public static var `default`: IssueReporter {
    get { defaultReporter.withLock { $0 } }
    set { defaultReporter.withLock { $0 = newValue } }
  }
}

private let printedLocations = Guarded<Set<String>>([])
private let defaultReporter = Guarded<IssueReporter>(.printing)
