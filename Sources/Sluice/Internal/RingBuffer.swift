/// A growable FIFO ring buffer: amortized O(1) append and removal at the front, no allocation
/// once it reached its working size.
struct RingBuffer<Element> {
  private var storage: [Element?] = []
  private var head = 0
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  mutating func append(_ element: Element) {
    if count == storage.count { grow() }
    storage[(head + count) % storage.count] = element
    count += 1
  }

  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head]
    storage[head] = nil
    head = (head + 1) % storage.count
    count -= 1
    return element
  }

  private mutating func grow() {
    var grown: [Element?] = []
    grown.reserveCapacity(Swift.max(16, storage.count * 2))
    for offset in 0..<count { grown.append(storage[(head + offset) % storage.count]) }
    grown.append(contentsOf: repeatElement(nil, count: grown.capacity - grown.count))
    storage = grown
    head = 0
  }
}
