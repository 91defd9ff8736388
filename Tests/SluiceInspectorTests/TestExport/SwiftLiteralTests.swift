import Foundation
import Sluice
import Testing

@testable import SluiceInspector

/// Values written back as Swift source, for the record → test file.
@Suite struct SwiftLiteralTests {
  enum Oops: Error, Equatable {
    case late(minutes: Int)
  }

  struct Opaque: Error {}

  struct Inner: Equatable {
    var title: String
    var tags: [String]
  }

  struct Outer: Equatable {
    var id: Int
    var inner: Inner
  }

  @Test func aLoadableIsWrittenWithItsPublicConstructors() throws {
    var reloading = Loadable<Int>.loaded(3)
    reloading.start()
    var failed = Loadable<Int>.loaded(2)
    failed.fail(Oops.late(minutes: 5))
    let cases: [(Loadable<Int>, String)] = [
      (.idle, "Loadable<Int>.idle"),
      (.loading(), "Loadable<Int>.loading()"),
      (reloading, "Loadable<Int>.loading(keeping: 3)"),
      (.loaded(7), "Loadable<Int>.loaded(7)"),
      (failed, "Loadable<Int>.failed(SwiftLiteralTests.Oops.late(minutes: 5), fallback: 2)"),
      (
        .failed(Oops.late(minutes: 1)),
        "Loadable<Int>.failed(SwiftLiteralTests.Oops.late(minutes: 1))"
      ),
    ]
    for (value, expected) in cases {
      let source = try SwiftLiteral.source(of: value)
      #expect(source == expected)
    }
    // Also where it is optional.
    let some: Loadable<Int>? = .loaded(7)
    #expect(try SwiftLiteral.source(of: some as Any) == "Loadable<Int>.loaded(7)")
    // What the source says builds an equal value (timestamps take no part in equality).
    #expect(reloading == .loading(keeping: 3))
    #expect(failed == .failed(Oops.late(minutes: 5), fallback: 2))
  }

  @Test func aLoadableThatATestCouldNeverEqualIsAnErrorNamingWhy() {
    let opaque = Loadable<Int>.failed(Opaque())
    #expect {
      try SwiftLiteral.source(of: opaque)
    } throws: { error in
      (error as? SwiftLiteral.Unwritable)?.what.contains("not Equatable") == true
    }
    var tagged = Loadable<Int>.loaded(1)
    tagged.metadata[Int.self] = 4
    #expect {
      try SwiftLiteral.source(of: tagged)
    } throws: { error in
      (error as? SwiftLiteral.Unwritable)?.what.contains("metadata") == true
    }
  }

  @Test func aLongValueWrapsItsArgumentsTwoSpacesDeeperPerLevel() throws {
    let value = Outer(
      id: 1,
      inner: Inner(
        title: String(repeating: "a", count: 40), tags: ["first tag", "second tag", "third tag"]))
    let source = try SwiftLiteral.source(of: value, indent: 2, width: 60)
    #expect(
      source == """
        SwiftLiteralTests.Outer(
            id: 1,
            inner: SwiftLiteralTests.Inner(
              title: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
              tags: ["first tag", "second tag", "third tag"]
            )
          )
        """)
  }

  @Test func aLoadableInsideALongValueWrapsToo() throws {
    let value: Loadable<Inner>? = .loaded(Inner(title: "Ada", tags: ["x", "y"]))
    let wrapped = try SwiftLiteral.source(of: value as Any, indent: 0, width: 30)
    #expect(
      wrapped == """
        Loadable<SwiftLiteralTests.Inner>.loaded(
          SwiftLiteralTests.Inner(
            title: "Ada",
            tags: ["x", "y"]
          )
        )
        """)
  }
}
