/// A growable FIFO ring buffer: amortized O(1) append and removal at the front, no allocation
/// once it reached its working size, and memory given back after a burst.
struct RingBuffer<Element> {
  private var storage: [Element?] = []
  private var head = 0
  private(set) var count = 0

  /// The capacity a buffer keeps however empty it gets.
  static var minimumCapacity: Int { 16 }

  var isEmpty: Bool { count == 0 }

  /// The number of elements the buffer can hold before it grows.
  var capacity: Int { storage.count }

  mutating func append(_ element: Element) {
    if count == storage.count { resize(to: Swift.max(Self.minimumCapacity, storage.count * 2)) }
    storage[(head + count) % storage.count] = element
    count += 1
  }

  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head]
    storage[head] = nil
    head = (head + 1) % storage.count
    count -= 1
    // Give memory back after a burst: a quarter full halves the buffer.
    if storage.count > Self.minimumCapacity, count <= storage.count / 4 {
      resize(to: storage.count / 2)
    }
    return element
  }

  /// The element at the front, if any.
  var first: Element? { count > 0 ? storage[head] : nil }

  /// The elements, front to back.
  var elements: [Element] {
    (0..<count).compactMap { storage[(head + $0) % storage.count] }
  }

  /// Calls `body` on every element, front to back, letting it change the element in place.
  mutating func updateEach(_ body: (inout Element) -> Void) {
    for offset in 0..<count {
      let index = (head + offset) % storage.count
      if var element = storage[index] {
        storage[index] = nil
        body(&element)
        storage[index] = element
      }
    }
  }

  private mutating func resize(to capacity: Int) {
    var resized: [Element?] = []
    resized.reserveCapacity(capacity)
    for offset in 0..<count { resized.append(storage[(head + offset) % storage.count]) }
    resized.append(contentsOf: repeatElement(nil, count: capacity - resized.count))
    storage = resized
    head = 0
  }
}
