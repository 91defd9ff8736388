import Logging
import Sluice

extension IssueReporter {
  /// A reporter that writes every issue to a swift-log `Logger`.
  ///
  /// Each issue becomes one record: its message is the issue's `message`,
  /// its source location is the call that caused the issue (not this reporter), its `source` is
  /// `"Sluice"`, and it carries this metadata:
  ///
  /// | Key | Value |
  /// | --- | --- |
  /// | `sluice.issue` | The issue's kind, such as `"runawayActionChain"` |
  /// | `sluice.file` | The `#fileID` of the call that caused the issue |
  /// | `sluice.line` | The line of that call |
  ///
  /// Unlike `IssueReporter.printing`, it does not deduplicate: each report is one
  /// record, and the logger's level and handler decide what is kept.
  ///
  /// ```swift
  /// let logger = Logger(label: "app.sluice")
  /// let dispatcher = Dispatcher(reporter: .logging(to: logger))
  /// // or, for every dispatcher created without a reporter:
  /// IssueReporter.default = .logging(to: logger)
  /// ```
  ///
  /// - Parameters:
  ///   - logger: The logger to write to.
  ///   - level: The level of each kind of issue; ``Sluice/ReportedIssue/Kind/suggestedLogLevel``
  ///     by default.
  /// - Returns: The reporter.
  public static func logging(
    to logger: Logger,
    level: @escaping @Sendable (ReportedIssue.Kind) -> Logger.Level = { $0.suggestedLogLevel }
  ) -> IssueReporter {
    IssueReporter { issue in
      logger.log(
        level: level(issue.kind), "\(issue.message)",
        metadata: [
          "sluice.issue": "\(issue.kind.name)",
          "sluice.file": "\(issue.fileID)",
          "sluice.line": "\(issue.line)",
        ],
        source: "Sluice", file: issue.fileID, function: "", line: issue.line)
    }
  }
}

extension ReportedIssue.Kind {
  /// The level ``Sluice/IssueReporter/logging(to:level:)`` logs this kind of issue at by
  /// default.
  ///
  /// Issues after which Sluice dropped or undid work the program asked for are errors: a
  /// runaway action chain (its last action was dropped), a lock that timed out, a transaction
  /// aborted by a re-entrant update or a store of another dispatcher. Every other issue,
  /// including kinds defined by libraries built on Sluice, is a warning: a misuse that Sluice
  /// ignored or answered with a fallback.
  ///
  /// ```swift
  /// let reporter = IssueReporter.logging(to: logger) { kind in
  ///   kind == .unknownPath ? .notice : kind.suggestedLogLevel
  /// }
  /// ```
  public var suggestedLogLevel: Logger.Level {
    switch self {
    case .runawayActionChain, .lockTimedOut, .reentrantUpdate, .foreignStoreInTransaction:
      .error
    default:
      .warning
    }
  }
}
