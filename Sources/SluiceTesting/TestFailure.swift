import Testing
import XCTest

/// Where a test assertion was made, to report its failure there.
public struct TestLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// Captures a location.
  public init(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// Fails the running test: a Swift Testing issue inside a Swift Testing test, an `XCTFail`
/// otherwise.
func recordFailure(_ message: String, at location: TestLocation) {
  if Test.current != nil {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(
        fileID: "\(location.fileID)", filePath: "\(location.filePath)",
        line: Int(location.line), column: Int(location.column)))
  } else {
    XCTFail(message, file: location.filePath, line: location.line)
  }
}
