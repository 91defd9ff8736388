import Sluice

/// The messages on their way to one client, in order, with a bound on how many, and how many
/// bytes, wait.
///
/// A client that stops reading (its socket stalls) while messages keep coming must not be sent
/// a log with holes: the first message that finds no room ends the queue, so nothing after it
/// is sent either, and ``overflowed`` tells the writer to close the connection once the ones
/// before it are out. The page then reconnects and starts over from a snapshot.
struct OutboundQueue: Sendable {
  private struct Waiting {
    var count = 0
    var bytes = 0
    var overflowed = false
  }

  /// What the writer sends, in order; it ends after an overflow. The writer calls ``taken(_:)``
  /// for each.
  let messages: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  private let waiting = Guarded(Waiting())
  private let limit: Int
  private let byteLimit: Int

  /// A queue of at most `limit` messages and `byteLimit` bytes (UTF-8) waiting.
  init(limit: Int, byteLimit: Int) {
    self.limit = max(1, limit)
    self.byteLimit = max(1, byteLimit)
    (messages, continuation) = AsyncStream.makeStream(of: String.self)
  }

  /// Whether a message found no room: the client misses it, and everything after it.
  var overflowed: Bool { waiting.withLock { $0.overflowed } }

  /// Queues `text`, unless the queue ended or has no room for it (which ends it).
  func send(_ text: String) {
    let size = text.utf8.count
    let room = waiting.withLock { waiting -> Bool in
      guard !waiting.overflowed else { return false }
      // One message larger than the byte limit still goes when nothing waits.
      guard waiting.count < limit, waiting.count == 0 || waiting.bytes + size <= byteLimit else {
        waiting.overflowed = true
        return false
      }
      waiting.count += 1
      waiting.bytes += size
      return true
    }
    if room {
      continuation.yield(text)
    } else {
      continuation.finish()
    }
  }

  /// Tells the queue the writer took `text` off it.
  func taken(_ text: String) {
    let size = text.utf8.count
    waiting.withLock { waiting in
      waiting.count -= 1
      waiting.bytes -= size
    }
  }

  /// Ends the queue: the writer sends what waits, then stops.
  func finish() {
    continuation.finish()
  }
}
