import Foundation
import Logging

/// The records a ``RecordingLogHandler`` kept, oldest first, for tests.
final class LogRecorder: @unchecked Sendable {
  // @unchecked Sendable: `events` is only touched under `lock`.
  private let lock = NSLock()
  private var events: [LogEvent] = []

  init() {}

  /// A logger that writes here, at `level` and above; no process-wide bootstrap.
  func logger(level: Logger.Level = .trace) -> Logger {
    Logger(label: "sluice.tests") { _ in RecordingLogHandler(recorder: self, logLevel: level) }
  }

  /// Every record so far.
  var records: [LogEvent] { lock.withLock { events } }

  func append(_ event: LogEvent) { lock.withLock { events.append(event) } }

  /// Everything a record shows, its message and its metadata, as one text.
  static func text(of event: LogEvent) -> String {
    let metadata = (event.metadata ?? [:]).sorted { $0.key < $1.key }
      .map { "\($0.key)=\($0.value)" }
    return ([event.message.description] + metadata).joined(separator: " ")
  }
}

/// A log handler that keeps every record in a ``LogRecorder``.
struct RecordingLogHandler: LogHandler {
  let recorder: LogRecorder
  var logLevel: Logger.Level
  var metadata: Logger.Metadata = [:]

  init(recorder: LogRecorder, logLevel: Logger.Level) {
    self.recorder = recorder
    self.logLevel = logLevel
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) { recorder.append(event) }
}

extension LogEvent {
  /// The string value of the metadata under `key`, if it is a string.
  func string(_ key: String) -> String? {
    guard case .string(let value)? = metadata?[key] else { return nil }
    return value
  }

  /// The strings of the array under `key`, if it is an array of strings.
  func strings(_ key: String) -> [String]? {
    guard case .array(let values)? = metadata?[key] else { return nil }
    return values.map { value in
      if case .string(let text) = value { text } else { "\(value)" }
    }
  }
}
