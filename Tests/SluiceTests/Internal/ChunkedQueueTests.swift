import Testing

@testable import Sluice

/// The lane's queue: first in, first out across chunks, and its memory goes back as it drains.
@Suite struct ChunkedQueueTests {
  @Test func elementsLeaveInArrivalOrderAcrossChunks() {
    var queue = ChunkedQueue<Int>()
    var expected = 0
    var next = 0
    // Interleaved appends and removals, so chunks fill, drain and are freed while others fill.
    for round in 0..<50 {
      for _ in 0..<(round * 97 % 1_000 + 1) {
        queue.append(next)
        next += 1
      }
      for _ in 0..<(round * 61 % 900) {
        guard let first = queue.popFirst() else { break }
        #expect(first == expected)
        expected += 1
      }
      #expect(queue.count == next - expected)
      #expect(queue.first == (queue.isEmpty ? nil : expected))
    }
    #expect(queue.elements == Array(expected..<next))
    while let first = queue.popFirst() {
      #expect(first == expected)
      expected += 1
    }
    #expect(expected == next)
    #expect(queue.popFirst() == nil)
  }

  /// What a drainer is lent leaves the queue, and what it hands back goes back to the front: into
  /// the room before the head, or into a new first chunk once the old one was freed.
  @Test func elementsMovedOutAndPutBackKeepTheirOrder() {
    var queue = ChunkedQueue<String>()
    for value in 0..<40 { queue.append("\(value)") }
    var moved: [String] = []
    queue.moveFront(upTo: 5, into: &moved) { $0 != "3" }
    #expect(moved == ["0", "1", "2"])
    queue.prepend(moved[1...])
    #expect(queue.elements == (1..<40).map { "\($0)" })
    // The first chunk (16 elements) is drained and freed: the rest goes into a new chunk.
    moved = []
    queue.moveFront(upTo: 100, into: &moved) { _ in true }
    #expect(moved == (1..<16).map { "\($0)" })
    queue.prepend(moved[10...])
    #expect(queue.elements == (11..<40).map { "\($0)" })
    for value in 40..<100 { queue.append("\(value)") }
    var expected = 11
    while let first = queue.popFirst() {
      #expect(first == "\(expected)")
      expected += 1
    }
    #expect(expected == 100)
  }

  @Test func aBurstGivesItsMemoryBackAsItDrains() {
    var queue = ChunkedQueue<Int>()
    for value in 0..<100_000 { queue.append(value) }
    #expect(queue.capacity >= 100_000)
    // No chunk is larger than the maximum, so a burst never costs more than itself plus one
    // chunk.
    #expect(queue.capacity < 100_000 + 2 * ChunkedQueue<Int>.maximumChunk)
    for _ in 0..<90_000 { _ = queue.popFirst() }
    #expect(queue.capacity <= 10_000 + 2 * ChunkedQueue<Int>.maximumChunk)
    while queue.popFirst() != nil {}
    #expect(queue.capacity == 0)
  }

  @Test func aSmallQueueKeepsOneSmallChunk() {
    var queue = ChunkedQueue<Int>()
    for value in 0..<1_000 {
      queue.append(value)
      #expect(queue.popFirst() == value)
    }
    #expect(queue.capacity > 0)
    #expect(queue.capacity <= ChunkedQueue<Int>.minimumCapacity * 2)
  }

  @Test func aCopyIsAValueOfItsOwn() {
    // The model checker copies the machine, queues included, at every step.
    var original = ChunkedQueue<String>()
    for value in 0..<100 { original.append("\(value)") }
    for _ in 0..<30 { _ = original.popFirst() }
    var copy = original
    copy.append("copy")
    _ = copy.popFirst()
    copy.updateEach { $0 += "!" }
    original.append("original")
    #expect(original.elements == (30..<100).map { "\($0)" } + ["original"])
    #expect(copy.elements == (31..<100).map { "\($0)!" } + ["copy!"])
    while copy.popFirst() != nil {}
    #expect(original.count == 71)
  }

  @Test func updateEachChangesEveryElementInPlaceInOrder() {
    var queue = ChunkedQueue<Int>()
    for value in 0..<10_000 { queue.append(value) }
    for _ in 0..<1_234 { _ = queue.popFirst() }
    var seen: [Int] = []
    queue.updateEach { element in
      seen.append(element)
      element *= 2
    }
    #expect(seen == Array(1_234..<10_000))
    #expect(queue.elements == (1_234..<10_000).map { $0 * 2 })
  }
}
