import CAllocCounter

/// Counts heap allocations made by the whole process (see `alloc_counter.c`).
enum AllocationCounter {
  /// Whether the counter is known to see allocations made by the Swift runtime: checked once by
  /// allocating objects and watching the counter move. When `false`, allocs/op is reported as
  /// unknown (`null`), never guessed.
  static let isReliable: Bool = {
    guard sluice_bench_alloc_counter_available() != 0 else { return false }
    let probes = 64
    let before = sluice_bench_alloc_count()
    for index in 0..<probes { escape(Probe(index)) }
    let raw = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
    raw.deallocate()
    let after = sluice_bench_alloc_count()
    // Every probe object and the aligned buffer must have been seen.
    return after &- before >= UInt64(probes + 1)
  }()

  /// The number of allocations so far; only meaningful when ``isReliable``.
  static var count: UInt64 { sluice_bench_alloc_count() }

  private final class Probe {
    let value: Int
    init(_ value: Int) { self.value = value }
  }
}
