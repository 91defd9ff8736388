import Sluice
import Testing

@testable import SluiceInspector

/// The recorder on its own, driven as the lane drives it.
@Suite struct RecorderTests {
  @Test func aFollowerThatFellBehindIsToldToStartOver() async {
    let recorder = Recorder(encoder: ValueEncoder(redaction: .none), capacity: 100)
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
    let recorder = Recorder(encoder: ValueEncoder(redaction: .none), capacity: 3)
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
}
