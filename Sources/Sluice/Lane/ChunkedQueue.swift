/// A FIFO queue stored in chunks: amortized O(1) append and removal at the front.
///
/// Unlike a ring buffer that doubles, it never copies its elements to grow, so a burst costs its
/// own size and not up to three times that while it grows; and each chunk is freed as soon as
/// it is drained, so the memory of a burst goes back while the queue drains. Chunks start small
/// (a lane that queues a few items keeps a few words) and double up to ``maximumChunk``
/// elements.
struct ChunkedQueue<Element> {
  /// Every chunk but the last is full; the first one's elements before `head` were taken.
  private var chunks: [ContiguousArray<Element?>] = []
  private var head = 0
  private(set) var count = 0

  /// The size of the first chunk, and the largest chunk a queue keeps once empty.
  static var minimumCapacity: Int { 16 }
  /// The largest chunk: 4,096 elements (128 KiB for the lane's 32-byte items, which the
  /// allocator maps and unmaps on its own).
  static var maximumChunk: Int { 4_096 }

  var isEmpty: Bool { count == 0 }

  /// The number of elements the queue holds memory for.
  var capacity: Int { chunks.reduce(0) { $0 + $1.capacity } }

  mutating func append(_ element: Element) {
    count += 1
    if let last = chunks.indices.last, chunks[last].count < chunks[last].capacity {
      chunks[last].append(element)
      return
    }
    let size = chunks.last.map { Swift.min(Self.maximumChunk, $0.capacity * 2) }
    var chunk = ContiguousArray<Element?>()
    chunk.reserveCapacity(size ?? Self.minimumCapacity)
    chunk.append(element)
    chunks.append(chunk)
  }

  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = chunks[0][head].take()
    head += 1
    count -= 1
    if count == 0 {
      // Keep one small chunk for the next items; give a large one back.
      if chunks.count == 1, chunks[0].capacity <= Self.minimumCapacity * 16 {
        chunks[0].removeAll(keepingCapacity: true)
      } else {
        chunks.removeAll()
      }
      head = 0
    } else if head == chunks[0].count {
      // A drained chunk that is not the last (the last still has elements): free it.
      chunks.removeFirst()
      head = 0
    }
    return element
  }

  /// The element at the front, if any.
  var first: Element? { count > 0 ? chunks[0][head] : nil }

  /// The elements, front to back.
  var elements: [Element] {
    var result: [Element] = []
    result.reserveCapacity(count)
    for (index, chunk) in chunks.enumerated() {
      result.append(contentsOf: chunk[(index == 0 ? head : 0)...].compactMap { $0 })
    }
    return result
  }

  /// Calls `body` on every element, front to back, letting it change the element in place.
  mutating func updateEach(_ body: (inout Element) -> Void) {
    for index in chunks.indices {
      for position in (index == 0 ? head : 0)..<chunks[index].count {
        if var element = chunks[index][position].take() {
          body(&element)
          chunks[index][position] = element
        }
      }
    }
  }
}
