import Sluice
import Testing

@testable import SluiceTesting

private struct Point: Equatable {
  var x: Int
  var y: Int
}
private enum Shape: Equatable {
  case dot
  case circle(radius: Double)
  case segment(Point, Point)
}
private struct Drawing: Equatable {
  var title: String?
  var shapes: [Shape]
  var tags: Set<String>
  var layers: [String: Int]
  var delay: Duration
}

@Suite struct SwiftLiteralTests {
  @Test func writesValuesAsTheSwiftThatMakesThem() {
    let drawing = Drawing(
      title: "a \"b\"",
      shapes: [.dot, .circle(radius: 1.5), .segment(Point(x: 1, y: 2), Point(x: 3, y: 4))],
      tags: ["z", "a"], layers: ["top": 2, "bottom": 1], delay: .milliseconds(300))
    #expect(
      SwiftLiteral.describe(drawing)
        == #"Drawing(title: "a \"b\"", shapes: [.dot, .circle(radius: 1.5), "#
        + #".segment(Point(x: 1, y: 2), Point(x: 3, y: 4))], tags: ["a", "z"], "#
        + #"layers: ["bottom": 1, "top": 2], delay: .milliseconds(300))"#)
    #expect(SwiftLiteral.describe(Drawing?.none as Any) == "nil")
    #expect(SwiftLiteral.describe([String: Int]()) == "[:]")
    #expect(SwiftLiteral.describe(Duration.seconds(2)) == ".seconds(2)")
    #expect(SwiftLiteral.describe(Duration.microseconds(7)) == ".microseconds(7)")
  }

  @Test func assignsOnlyTheChangedProperties() throws {
    let before = Point(x: 1, y: 2)
    #expect(
      try SwiftLiteral.assignments(from: before, to: Point(x: 1, y: 5), lenient: true) == [
        "$0.y = 5"
      ])
    #expect(try SwiftLiteral.assignments(from: before, to: before, lenient: true).isEmpty)
    #expect(
      try SwiftLiteral.assignments(from: Shape.dot, to: Shape.circle(radius: 2), lenient: true)
        == ["$0 = .circle(radius: 2.0)"])
  }

  @Test func namesATestAfterTheInvariant() {
    #expect(TestCodePrinter<Int>.identifier("open + done == all") == "openDoneAll")
    #expect(TestCodePrinter<Int>.identifier("2 lists agree") == "invariant2ListsAgree")
    #expect(TestCodePrinter<Int>.identifier("+") == "invariantHolds")
  }
}
