import Testing

@testable import SluiceInspector

/// The messages waiting for one client: in order, and none after one that found no room.
@Suite struct OutboundQueueTests {
  @Test func theMessagesThatFitAreSentInOrder() async {
    let queue = OutboundQueue(limit: 3, byteLimit: 100)
    for text in ["a", "b", "c"] { queue.send(text) }
    queue.finish()
    var sent: [String] = []
    for await text in queue.messages {
      queue.taken(text)
      sent.append(text)
    }
    #expect(sent == ["a", "b", "c"])
    #expect(!queue.overflowed)
  }

  @Test func aMessageWithoutRoomEndsTheQueueSoTheClientGetsNoHole() async {
    let queue = OutboundQueue(limit: 3, byteLimit: 100)
    for text in ["a", "b", "c", "d", "e"] { queue.send(text) }
    #expect(queue.overflowed)
    var sent: [String] = []
    for await text in queue.messages { sent.append(text) }
    // "d" found no room: neither it nor "e" is sent, and the stream ends for the writer,
    // which then closes the connection.
    #expect(sent == ["a", "b", "c"])
  }

  @Test func aReaderKeepingUpNeverOverflows() async {
    let queue = OutboundQueue(limit: 2, byteLimit: 4)
    var sent: [String] = []
    var iterator = queue.messages.makeAsyncIterator()
    for index in 0..<100 {
      queue.send("\(index)")
      if let text = await iterator.next() {
        queue.taken(text)
        sent.append(text)
      }
    }
    #expect(!queue.overflowed)
    #expect(sent == (0..<100).map { "\($0)" })
  }

  @Test func theBytesWaitingAreBoundedToo() async {
    let queue = OutboundQueue(limit: 100, byteLimit: 10)
    // A message larger than the bound goes when nothing waits; then the bytes count.
    for text in ["0123456789ab", "c", "def", "0123456789", "g"] { queue.send(text) }
    #expect(queue.overflowed)
    var sent: [String] = []
    for await text in queue.messages { sent.append(text) }
    #expect(sent == ["0123456789ab"])
  }
}
