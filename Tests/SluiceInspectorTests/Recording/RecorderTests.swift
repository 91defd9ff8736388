import Sluice
import Synchronization
import Testing

@testable import SluiceInspector

/// The recorder on its own, driven as the lane drives it.
@Suite struct RecorderTests {
  @Test func aFollowerThatFellBehindIsToldToStartOver() async {
    let recorder = Recorder(redaction: .none, capacity: 100)
    let following = recorder.follow(buffer: 4)
    let origin = DispatchOrigin(site: nil, cause: .outside)
    for _ in 0..<20 {
      recorder.stepStarted(Increment(), origin: origin)
      recorder.itemEnded()
    }
    following.stop()
    var events: [String] = []
    for await event in following.events {
      switch event {
      case .record(let record): events.append("record \(record.seq)")
      case .summary: events.append("summary")
      case .store: events.append("store")
      case .resync: events.append("resync")
      }
    }
    // The buffer kept the newest four; the loss before them comes first.
    #expect(events == ["resync", "record 17", "record 18", "record 19", "record 20"])
    #expect(recorder.snapshot().records.map(\.seq) == Array(1...20))
  }

  @Test func theRingKeepsTheNewestRecordsAndCountsTheOthersByType() {
    let recorder = Recorder(redaction: .none, capacity: 3)
    let origin = DispatchOrigin(site: nil, cause: .outside)
    for index in 0..<10 {
      if index.isMultiple(of: 2) {
        recorder.stepStarted(Increment(), origin: origin)
      } else {
        recorder.stepStarted(AddTodo(title: "\(index)"), origin: origin)
      }
      recorder.itemEnded()
    }
    let snapshot = recorder.snapshot()
    #expect(snapshot.records.map(\.seq) == [8, 9, 10])
    #expect(snapshot.summary.dropped == 7)
    #expect(snapshot.summary.byType == ["Increment": 4, "AddTodo": 3])
  }

  /// A clock the test moves by hand; nothing sleeps on it.
  final class HandClock: Clock, Sendable {
    struct Instant: InstantProtocol {
      var offset: Duration
      func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
      func duration(to other: Instant) -> Duration { other.offset - offset }
      static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))
    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    func move(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
      throw CancellationError()
    }
  }

  @Test func aStepsDurationIsMeasuredOnTheConfiguredClock() {
    let clock = HandClock()
    let recorder = Recorder(redaction: .none, capacity: 10, clock: clock)
    let origin = DispatchOrigin(site: nil, cause: .outside)
    clock.move(by: .seconds(3))
    recorder.stepStarted(Increment(), origin: origin)
    clock.move(by: .microseconds(1_500))
    recorder.itemEnded()
    recorder.stepStarted(Increment(), origin: origin)
    recorder.itemEnded()
    #expect(recorder.snapshot().records.map(\.durationMicros) == [1_500, 0])
  }
}
