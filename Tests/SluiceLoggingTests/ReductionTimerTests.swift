import Foundation
import Logging
import Sluice
import Testing

@testable import SluiceLogging

/// A log level that tests change while a store reduces.
final class LogLevelBox: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Logger.Level

  init(_ level: Logger.Level) { value = level }

  var level: Logger.Level {
    get { lock.withLock { value } }
    set { lock.withLock { value = newValue } }
  }
}

/// A handler whose level is read from a shared box, so that it can change mid-reduction.
struct SharedLevelLogHandler: LogHandler {
  let recorder: LogRecorder
  let box: LogLevelBox
  var metadata: Logger.Metadata = [:]

  var logLevel: Logger.Level {
    get { box.level }
    set { box.level = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) { recorder.append(event) }
}

struct LogRaiseLevel: Action { let box: LogLevelBox }

@Suite("Logging reduction timer")
struct ReductionTimerTests {
  @Test func eachStopTakesTheOldestStart() {
    let timer = ReductionTimer()
    #expect(!timer.hasPendingStart)
    #expect(timer.stop() == nil)

    timer.start()
    timer.start()

    #expect(timer.hasPendingStart)
    #expect(timer.stop().map { $0 >= .zero } == true)
    #expect(timer.stop() != nil)
    #expect(timer.stop() == nil)
    #expect(!timer.hasPendingStart)
  }

  @Test func startsThatNeverStopAreBounded() {
    let timer = ReductionTimer()
    for _ in 0..<(ReductionTimer.capacity + 10) { timer.start() }

    var stopped = 0
    while timer.stop() != nil { stopped += 1 }

    #expect(stopped == ReductionTimer.capacity)
  }

  @Test func durationsAreWrittenInMillisecondsWithThreeDecimals() {
    #expect(Duration.microseconds(12).millisecondsDescription == "0.012 ms")
    #expect(Duration.nanoseconds(999).millisecondsDescription == "0.000 ms")
    #expect(Duration.milliseconds(1500).millisecondsDescription == "1500.000 ms")
    #expect(Duration.microseconds(-2).millisecondsDescription == "-0.002 ms")
  }

  @Test func aLevelRaisedDuringAReductionLogsNothingAndKeepsTheTimerInStep() {
    let recorder = LogRecorder()
    let box = LogLevelBox(.debug)
    let logger = Logger(label: "sluice.tests") { _ in
      SharedLevelLogHandler(recorder: recorder, box: box)
    }
    let store = Store(
      initialState: LogCounter(),
      reducer: Reducer<LogCounter>()
        .on(LogRaiseLevel.self) { state, action in
          action.box.level = .info
          state.count += 1
        }
        .on(LogNothingChanged.self) { state, _ in state.count += 10 },
      middleware: [.logging(to: logger)])

    store.dispatch(LogRaiseLevel(box: box))
    #expect(recorder.records.isEmpty)

    box.level = .debug
    store.dispatch(LogNothingChanged())

    #expect(recorder.records.map { $0.string("sluice.action") } == ["LogNothingChanged"])
    #expect(recorder.records.first?.string("sluice.duration") != nil)
  }
}
