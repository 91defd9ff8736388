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
struct LogNested: Action {}

@Suite("Logging reduction durations")
struct ReductionDurationTests {
  /// A logger writing to `recorder` whose level is `box`'s.
  func logger(_ recorder: LogRecorder, _ box: LogLevelBox) -> Logger {
    Logger(label: "sluice.tests") { _ in SharedLevelLogHandler(recorder: recorder, box: box) }
  }

  @Test func durationsAreWrittenInMillisecondsWithThreeDecimals() {
    #expect(Duration.microseconds(12).millisecondsDescription == "0.012 ms")
    #expect(Duration.nanoseconds(999).millisecondsDescription == "0.000 ms")
    #expect(Duration.milliseconds(1500).millisecondsDescription == "1500.000 ms")
    #expect(Duration.microseconds(-2).millisecondsDescription == "-0.002 ms")
  }

  @Test func aLevelRaisedDuringAReductionLogsNothingAndTheNextReductionIsTimed() {
    let recorder = LogRecorder()
    let box = LogLevelBox(.debug)
    let store = Store(
      initialState: LogCounter(),
      reducer: Reducer<LogCounter>()
        .on(LogRaiseLevel.self) { state, action in
          action.box.level = .info
          state.count += 1
        }
        .on(LogNothingChanged.self) { state, _ in state.count += 10 },
      middleware: [.logging(to: logger(recorder, box))])

    store.dispatch(LogRaiseLevel(box: box))
    #expect(recorder.records.isEmpty)

    box.level = .debug
    store.dispatch(LogNothingChanged())

    #expect(recorder.records.map { $0.string("sluice.action") } == ["LogNothingChanged"])
    #expect(recorder.records.first?.string("sluice.duration") != nil)
  }

  @Test func aLevelLoweredDuringAReductionLogsItWithoutADuration() {
    let recorder = LogRecorder()
    let box = LogLevelBox(.info)
    let store = Store(
      initialState: LogCounter(),
      reducer: Reducer<LogCounter>().on(LogNothingChanged.self) { state, _ in
        box.level = .debug
        state.count += 1
      },
      middleware: [.logging(to: logger(recorder, box))])

    store.dispatch(LogNothingChanged())

    #expect(recorder.records.map { $0.string("sluice.action") } == ["LogNothingChanged"])
    #expect(recorder.records.first?.string("sluice.duration") == nil)
  }

  /// One logging middleware on two stores of two dispatchers: the inner store reduces while the
  /// outer one is between its `before` and `after`, with the level raised, so it logs nothing.
  /// The outer reduction keeps its own start (a shared queue of starts let the inner `after`
  /// take it, and the outer record lost its duration).
  @Test func aReductionNestedInAnotherDispatchersKeepsItsOwnStart() {
    let recorder = LogRecorder()
    let box = LogLevelBox(.debug)
    let logging = Middleware<LogCounter>.logging(to: logger(recorder, box))
    let inner = Store(
      initialState: LogCounter(),
      reducer: Reducer<LogCounter>().on(LogNothingChanged.self) { state, _ in state.count += 1 },
      middleware: [logging])
    let nesting = Middleware<LogCounter>.before { action, _ in
      guard action is LogNested else { return }
      box.level = .info
      inner.dispatch(LogNothingChanged())
      box.level = .debug
    }
    let outer = Store(
      initialState: LogCounter(),
      reducer: Reducer<LogCounter>().on(LogNested.self) { state, _ in state.count += 1 },
      middleware: [logging, nesting])

    outer.dispatch(LogNested())

    #expect(inner.state.count == 1)
    #expect(recorder.records.map { $0.string("sluice.action") } == ["LogNested"])
    #expect(recorder.records.first?.string("sluice.duration") != nil)
  }
}
