/// A FIFO queue stored in chunks of raw memory (doubling from 16 up to ``maximumChunk``): an
/// append or a removal at the front is a uniqueness check and a few loads and stores. It never
/// copies its elements to grow, and frees each chunk once drained. A value: copies share one
/// storage until one changes (the model checker copies the machine at every step).
struct ChunkedQueue<Element> {
  private var storage = Storage()

  /// The size of the first chunk, and the largest chunk a queue keeps once empty.
  static var minimumCapacity: Int { 16 }
  /// The largest chunk: 4,096 elements.
  static var maximumChunk: Int { 4_096 }

  var count: Int { storage.count }
  var isEmpty: Bool { storage.count == 0 }
  /// The number of elements the queue holds memory for.
  var capacity: Int { storage.chunks.reduce(0) { $0 + $1.capacity } }
  /// The element at the front, if any.
  var first: Element? { storage.count > 0 ? storage.headBase?[storage.head] : nil }

  /// The elements, front to back.
  var elements: [Element] {
    var result: [Element] = []
    storage.visit { result.append($0.pointee) }
    return result
  }

  mutating func append(_ element: Element) {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.append(element)
  }

  mutating func popFirst() -> Element? {
    guard storage.count > 0 else { return nil }
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    return storage.popFirst()
  }

  /// Moves the elements at the front to `buffer` (empty), up to `limit` and while `include`
  /// accepts them, from the first chunk only.
  mutating func moveFront(
    upTo limit: Int, into buffer: inout [Element], while include: (Element) -> Bool
  ) {
    guard storage.count > 0 else { return }
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.moveFront(upTo: limit, into: &buffer, while: include)
  }

  /// Puts `elements` back at the front, in their order, before the others.
  mutating func prepend(_ elements: ArraySlice<Element>) {
    guard !elements.isEmpty else { return }
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.prepend(elements)
  }

  /// Calls `body` on every element, front to back, letting it change the element in place.
  @inline(__always)
  mutating func updateEach(_ body: (inout Element) -> Void) {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.visit { body(&$0.pointee) }
  }

  private typealias Chunk = (base: UnsafeMutablePointer<Element>, capacity: Int)

  /// Every chunk but the last is full; the first one's elements before `head` were taken.
  private final class Storage {
    var chunks: [Chunk] = []
    var count = 0
    var head = 0
    /// The number of elements written to the last chunk.
    var tailUsed = 0
    // The first and last chunks, outside the array for the hot path (`nil` without chunks).
    var headBase: UnsafeMutablePointer<Element>?
    var headCapacity = 0
    var tailBase: UnsafeMutablePointer<Element>?
    var tailCapacity = 0

    deinit {
      visit { $0.deinitialize(count: 1) }
      for chunk in chunks { chunk.base.deallocate() }
    }

    /// Calls `body` with a pointer to every element, front to back.
    @inline(__always)
    func visit(_ body: (UnsafeMutablePointer<Element>) -> Void) {
      for (index, chunk) in chunks.enumerated() {
        let end = index == chunks.count - 1 ? tailUsed : chunk.capacity
        for position in (index == 0 ? head : 0)..<end { body(chunk.base + position) }
      }
    }

    /// A storage of its own with copies of the elements.
    func copy() -> Storage {
      let copy = Storage()
      visit { copy.append($0.pointee) }
      return copy
    }

    private func cacheEnds() {
      (headBase, headCapacity) = chunks.first.map { ($0.base, $0.capacity) } ?? (nil, 0)
      (tailBase, tailCapacity) = chunks.last.map { ($0.base, $0.capacity) } ?? (nil, 0)
    }

    @inline(__always)
    func append(_ element: Element) {
      if tailUsed == tailCapacity {
        let capacity = chunks.last.map { Swift.min(maximumChunk, $0.capacity * 2) }
        addChunk(capacity: capacity ?? minimumCapacity)
      }
      (tailBase.unsafelyUnwrapped + tailUsed).initialize(to: element)
      tailUsed += 1
      count += 1
    }

    @inline(never)
    private func addChunk(capacity: Int) {
      chunks.append((.allocate(capacity: capacity), capacity))
      tailUsed = 0
      cacheEnds()
    }

    /// Takes the element at the front (the queue is not empty).
    @inline(__always)
    func popFirst() -> Element {
      let element = (headBase.unsafelyUnwrapped + head).move()
      head += 1
      count -= 1
      if count == 0 || head == headCapacity { dropDrained() }
      return element
    }

    /// Moves the first elements `include` accepts, up to `limit`, to a new array (bitwise:
    /// no element is copied or destroyed).
    @inline(__always)
    func moveFront(upTo limit: Int, into buffer: inout [Element], while include: (Element) -> Bool)
    {
      let end = chunks.count == 1 ? tailUsed : headCapacity
      let start = headBase.unsafelyUnwrapped + head
      var taken = 0
      while taken < Swift.min(limit, end - head), include(start[taken]) { taken += 1 }
      guard taken > 0 else { return }
      buffer = Array(unsafeUninitializedCapacity: taken) { target, initialized in
        target.baseAddress.unsafelyUnwrapped.moveInitialize(from: start, count: taken)
        initialized = taken
      }
      head += taken
      count -= taken
      if count == 0 || head == headCapacity { dropDrained() }
    }

    /// Puts `elements` before the others: in the room before `head`, or in a new first chunk
    /// that takes the old one's elements too (every chunk but the last stays full).
    func prepend(_ elements: ArraySlice<Element>) {
      guard let old = headBase else { return elements.forEach(append) }
      count += elements.count
      if head >= elements.count {
        head -= elements.count
        return fill(old + head, with: elements)
      }
      let live = (chunks.count == 1 ? tailUsed : headCapacity) - head
      let base = UnsafeMutablePointer<Element>.allocate(capacity: elements.count + live)
      fill(base, with: elements)
      (base + elements.count).moveInitialize(from: old + head, count: live)
      old.deallocate()
      chunks[0] = (base, elements.count + live)
      if chunks.count == 1 { tailUsed = elements.count + live }
      head = 0
      cacheEnds()
    }

    private func fill(_ start: UnsafeMutablePointer<Element>, with elements: ArraySlice<Element>) {
      _ = UnsafeMutableBufferPointer(start: start, count: elements.count)
        .initialize(fromContentsOf: elements)
    }

    /// The queue is empty, or its first chunk is drained (and not the last): keeps one small
    /// chunk for the next items, frees the others.
    @inline(never)
    private func dropDrained() {
      if count > 0 {
        chunks.removeFirst().base.deallocate()
      } else if chunks.count > 1 || headCapacity > minimumCapacity * 16 {
        for chunk in chunks { chunk.base.deallocate() }
        chunks.removeAll()
      }
      if count == 0 { tailUsed = 0 }
      head = 0
      cacheEnds()
    }
  }
}
