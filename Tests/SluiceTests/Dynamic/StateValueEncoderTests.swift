import Foundation
import Testing

@testable import Sluice

/// `StateValueEncoder` turns any `Encodable` value into a `StateValue` tree, without a JSON
/// round trip; dotted-path reactions read that tree.
@Suite struct StateValueEncoderTests {
  struct Leaf: Codable, Equatable, Sendable {
    var name = "leaf"
    var weight = 1.5
    var _secret = "hidden"
  }

  struct Branch: Codable, Equatable, Sendable {
    var leaf = Leaf()
    var leaves: [Leaf] = [Leaf(name: "a"), Leaf(name: "b")]
    var maybeLeaf: Leaf?
    var maybeCount: Int?
    var presentCount: Int? = 4
    var byName: [String: Int] = ["one": 1, "two": 2]
    var matrix: [[Int]] = [[1, 2], [3]]
    var optionals: [Int?] = [1, nil]
    var flag = true
    var _internal = 7
  }

  enum Shape: Codable, Equatable, Sendable {
    case circle(radius: Int)
    case square
  }

  @Test func nestedStructsBecomeNestedObjects() throws {
    let tree = try StateValueEncoder().encode(Branch())
    #expect(tree[path: "leaf.name"] == "leaf")
    #expect(tree[path: "leaf.weight"] == 1.5)
    #expect(tree[path: "flag"] == true)
    #expect(tree["leaf"].objectValue?.keys.sorted() == ["_secret", "name", "weight"])
  }

  @Test func arraysBecomeArraysReachableByIndex() throws {
    let tree = try StateValueEncoder().encode(Branch())
    #expect(tree["leaves"].arrayValue?.count == 2)
    #expect(tree[path: "leaves.1.name"] == "b")
    #expect(tree["matrix"] == [[1, 2], [3]])
    #expect(tree[path: "matrix.1.0"] == 3)
  }

  @Test func aNilOptionalBecomesNullAndItsKeyIsPresent() throws {
    let tree = try StateValueEncoder().encode(Branch())
    let keys = tree.objectValue?.keys.sorted() ?? []
    #expect(keys.contains("maybeLeaf"))
    #expect(keys.contains("maybeCount"))
    #expect(tree["maybeLeaf"] == .null)
    #expect(tree["maybeCount"] == .null)
    #expect(tree["presentCount"] == 4)
    #expect(tree["optionals"] == [1, nil])
    var withLeaf = Branch()
    withLeaf.maybeLeaf = Leaf(name: "late")
    #expect(try StateValueEncoder().encode(withLeaf)[path: "maybeLeaf.name"] == "late")
  }

  @Test func stringKeyedDictionariesBecomeObjects() throws {
    let tree = try StateValueEncoder().encode(Branch())
    #expect(tree["byName"] == ["one": 1, "two": 2])
    #expect(tree[path: "byName.two"] == 2)
  }

  @Test func underscoredKeysAreKeptAtEveryDepthAndLeftOutOnlyForComparing() throws {
    let full = try StateValueEncoder().encode(Branch())
    #expect(full["_internal"] == 7)
    #expect(full[path: "leaf._secret"] == "hidden")
    let compared = full.removingUnderscoredKeys()
    #expect(compared.objectValue?.keys.contains("_internal") == false)
    #expect(compared["leaf"].objectValue?.keys.sorted() == ["name", "weight"])
    #expect(compared[path: "leaves.0"].objectValue?.keys.sorted() == ["name", "weight"])
    #expect(compared[path: "leaf.name"] == "leaf")
  }

  @Test func primitivesAtTheTopLevelBecomeTheirCase() throws {
    let encoder = StateValueEncoder()
    #expect(try encoder.encode(5) == 5)
    #expect(try encoder.encode(UInt8(5)) == 5)
    #expect(try encoder.encode(Int64(-5)) == -5)
    #expect(try encoder.encode(Float(0.5)) == 0.5)
    #expect(try encoder.encode("s") == "s")
    #expect(try encoder.encode(false) == false)
    #expect(try encoder.encode([1, 2]) == [1, 2])
    #expect(try encoder.encode(Int?.none) == .null)
    #expect(try encoder.encode(UInt64.max) == .double(Double(UInt64.max)))
  }

  @Test func aStateValueInsideAStateIsKeptAsItIs() throws {
    struct Holder: Encodable {
      var info: StateValue = ["nest": ["data": [1, nil]]]
    }
    #expect(try StateValueEncoder().encode(Holder()) == ["info": ["nest": ["data": [1, nil]]]])
  }

  @Test func enumsWithAssociatedValuesBecomeObjects() throws {
    let tree = try StateValueEncoder().encode([Shape.circle(radius: 2), .square])
    #expect(tree[path: "0.circle.radius"] == 2)
    #expect(tree[path: "1.square"] == [:])
  }

  @Test func theTreeMatchesWhatJSONEncoderWrites() throws {
    var branch = Branch()
    branch.maybeCount = 3
    branch.maybeLeaf = Leaf(name: "x")
    let tree = try StateValueEncoder().encode(branch)
    let viaJSON = try JSONDecoder().decode(
      StateValue.self, from: try JSONEncoder().encode(branch))
    #expect(tree == viaJSON)
  }

  @Test func anErrorThrownWhileEncodingPropagates() {
    struct Failing: Encodable {
      func encode(to encoder: any Encoder) throws { throw TxBoom(code: 7) }
    }
    struct Holder: Encodable { var inner = Failing() }
    #expect(throws: TxBoom(code: 7)) { try StateValueEncoder().encode(Holder()) }
  }
}
