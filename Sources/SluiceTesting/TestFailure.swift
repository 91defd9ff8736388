import IssueReporting

/// Where a test assertion was made, to report its failure there.
struct TestLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}

/// Fails the running test through IssueReporting: a Swift Testing issue inside a Swift Testing
/// test, an `XCTFail` inside an XCTest test, a runtime warning outside tests.
///
/// A failure inside `withKnownIssue` (Swift Testing) or `XCTExpectFailure` is expected there.
func recordFailure(_ message: String, at location: TestLocation) {
  reportIssue(
    message, fileID: location.fileID, filePath: location.filePath, line: location.line,
    column: location.column)
}
