import Foundation
import Testing

@testable import Sluice

/// S16 for `StateValue`: an index write is user input, so it never traps and never allocates an
/// absurd array. A write that would pad the array with more than `StateValue.maximumPadding`
/// `null` elements is ignored.
@Suite struct StateValueIndexBoundsTests {
  @Test(arguments: [Int.max, Int.max - 1, 10_000_000_000, StateValue.maximumPadding + 3])
  func aWriteTooFarPastTheEndIsIgnored(index: Int) {
    var empty = StateValue.null
    empty[index] = "far"
    #expect(empty == .null)

    var list: StateValue = [1, 2]
    list[index] = "far"
    #expect(list == [1, 2])

    var nested: StateValue = ["list": [1]]
    nested["list"][index] = "far"
    #expect(nested == ["list": [1]])
  }

  @Test func aWriteThatNeedsAtMostTheMaximumPaddingPadsWithNull() {
    var list: StateValue = [1]
    list[1 + StateValue.maximumPadding] = "last"
    #expect(list.arrayValue?.count == 2 + StateValue.maximumPadding)
    #expect(list[1] == .null)
    #expect(list[1 + StateValue.maximumPadding] == "last")

    var short: StateValue = [1]
    short[3] = 4
    #expect(short == [1, nil, nil, 4])
  }
}
