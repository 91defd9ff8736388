import Logging
import Sluice
import SluiceLogging
import Testing

struct LogCounter: Equatable, Sendable {
  var count = 0
}

@Suite("Issue reporter logging")
struct IssueReporterLoggingTests {
  @Test func aReportedIssueIsLoggedWithItsKindFileAndLine() throws {
    let recorder = LogRecorder()
    let dispatcher = Dispatcher(reporter: .logging(to: recorder.logger()))
    let first = Store(initialState: LogCounter(), dispatcher: dispatcher)
    let second = Store(initialState: LogCounter(), dispatcher: dispatcher)
    dispatcher.register(first)

    let line = #line + 1
    dispatcher.register(second)

    let record = try #require(recorder.records.first)
    #expect(recorder.records.count == 1)
    #expect(record.level == .warning)
    #expect(record.string("sluice.issue") == "duplicateRegistration")
    #expect(record.string("sluice.file") == #fileID)
    #expect(record.string("sluice.line") == "\(line)")
    #expect(record.file == #fileID, "the record points at the call that caused the issue")
    #expect(record.line == UInt(line))
    #expect(record.source == "Sluice")
    #expect(record.message.description.contains("LogCounter"))
  }

  @Test func issuesAfterWhichWorkWasLostAreErrorsAndOthersWarnings() {
    #expect(ReportedIssue.Kind.runawayActionChain.suggestedLogLevel == .error)
    #expect(ReportedIssue.Kind.lockTimedOut.suggestedLogLevel == .error)
    #expect(ReportedIssue.Kind.reentrantUpdate.suggestedLogLevel == .error)
    #expect(ReportedIssue.Kind.foreignStoreInTransaction.suggestedLogLevel == .error)
    #expect(ReportedIssue.Kind.unknownPath.suggestedLogLevel == .warning)
    #expect(ReportedIssue.Kind.reentrantDispatchRejected.suggestedLogLevel == .warning)
    #expect(ReportedIssue.Kind("someLibrarysOwnIssue").suggestedLogLevel == .warning)
  }

  @Test func eachIssueIsLoggedAtTheLevelOfItsKind() {
    let recorder = LogRecorder()
    let reporter = IssueReporter.logging(to: recorder.logger())

    reporter.report(issue(.runawayActionChain))
    reporter.report(issue(.unknownPath))

    #expect(recorder.records.map(\.level) == [.error, .warning])
    #expect(
      recorder.records.map { $0.string("sluice.issue") } == ["runawayActionChain", "unknownPath"])
  }

  @Test func aCustomMappingChoosesTheLevels() {
    let recorder = LogRecorder()
    let reporter = IssueReporter.logging(to: recorder.logger()) { kind in
      kind == .unknownPath ? .notice : .critical
    }

    reporter.report(issue(.unknownPath))
    reporter.report(issue(.lockTimedOut))

    #expect(recorder.records.map(\.level) == [.notice, .critical])
  }

  @Test func issuesBelowTheLoggersLevelAreDropped() {
    let recorder = LogRecorder()
    let reporter = IssueReporter.logging(to: recorder.logger(level: .error))

    reporter.report(issue(.unknownPath))
    reporter.report(issue(.runawayActionChain))

    #expect(recorder.records.map { $0.string("sluice.issue") } == ["runawayActionChain"])
  }

  @Test func everyReportIsLoggedEvenFromTheSameLocation() {
    let recorder = LogRecorder()
    let reporter = IssueReporter.logging(to: recorder.logger())

    reporter.report(issue(.unknownPath))
    reporter.report(issue(.unknownPath))

    #expect(recorder.records.count == 2, "the logger, not the reporter, decides what to keep")
  }

  private func issue(_ kind: ReportedIssue.Kind) -> ReportedIssue {
    ReportedIssue(kind: kind, message: "something about \(kind)", fileID: "App/File.swift", line: 7)
  }
}
