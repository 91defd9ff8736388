/// The `values` streams of one store that are still running, so that the store can finish them
/// when it is deinitialized.
///
/// A stream registers when it is made and leaves as soon as it ends — iterated to its end,
/// cancelled, or dropped — so the registry holds only live streams, never every stream ever
/// made.
final class ValueStreamEnds: Sendable {
  private struct Contents {
    var nextToken: UInt64 = 0
    var finishes: [UInt64: @Sendable () -> Void] = [:]
  }

  private let contents = Guarded(Contents())

  init() {}

  /// The number of live streams.
  var count: Int { contents.withLock { $0.finishes.count } }

  /// Registers the `finish` of a new stream; returns the token that removes it.
  func add(_ finish: @escaping @Sendable () -> Void) -> UInt64 {
    contents.withLock { contents in
      defer { contents.nextToken &+= 1 }
      contents.finishes[contents.nextToken] = finish
      return contents.nextToken
    }
  }

  /// Forgets the stream registered under `token`; nothing when it is gone already.
  func remove(_ token: UInt64) {
    _ = contents.withLock { $0.finishes.removeValue(forKey: token) }
  }

  /// Finishes every live stream (outside the lock: a stream's end calls ``remove(_:)``).
  func finishAll() {
    let finishes = contents.withLock { contents in
      defer { contents.finishes.removeAll() }
      return contents.finishes
    }
    for finish in finishes.values { finish() }
  }
}
