import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import SluiceTestSupport

/// A WebSocket client of an inspector, for the tests: it keeps every message it receives and
/// sends commands.
final class InspectorConnection: @unchecked Sendable {
  // @unchecked Sendable: `received`, `waiters`, `closed`, `closeFrame` and `upgrade` are only
  // touched under `lock`; the rest is immutable.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let lock = NSLock()
  private var received: [String] = []
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var closed = false
  /// The server's close frame, as "CODE: REASON", once the connection closed.
  private var closeFrame: String?
  private var upgrade: CheckedContinuation<Void, any Error>?
  private let outgoing: AsyncStream<String>.Continuation
  private let outgoingStream: AsyncStream<String>
  private var task: Task<Void, Never>?

  private init() {
    (outgoingStream, outgoing) = AsyncStream.makeStream(of: String.self)
  }

  /// Connects to `url` (with `origin` as its `Origin` header) and returns once the snapshot
  /// arrived; throws when the server refuses.
  ///
  /// SwiftNIO gives a connection up after 10 s (`ClientBootstrap`'s connect timeout, which the
  /// WebSocket client does not let a caller set); on a machine busy enough for its event loop
  /// to wait that long, the connection is tried again until ``hangGuard``: a test never
  /// asserts how fast the machine is.
  static func open(_ url: String, origin: String? = nil) async throws -> InspectorConnection {
    let deadline = ContinuousClock.now + hangGuard
    while true {
      do {
        return try await openOnce(url, origin: origin)
      } catch ChannelError.connectTimeout where ContinuousClock.now < deadline {
        continue
      }
    }
  }

  private static func openOnce(_ url: String, origin: String?) async throws -> InspectorConnection {
    let connection = InspectorConnection()
    var headers = HTTPFields()
    if let origin { headers[.origin] = origin }
    let logger = {
      var logger = Logger(label: "inspector-test")
      logger.logLevel = .critical
      return logger
    }()
    let configuration = WebSocketClientConfiguration(
      maxFrameSize: 1 << 24, additionalHeaders: headers)
    try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
      connection.lock.withLock { connection.upgrade = ready }
      let stream = connection.outgoingStream
      let task = Task {
        do {
          let frame = try await WebSocketClient.connect(
            url: url, configuration: configuration, logger: logger
          ) { inbound, outbound, _ in
            connection.upgraded(nil)
            try await withThrowingTaskGroup(of: Void.self) { group in
              group.addTask {
                for await text in stream { try await outbound.write(.text(text)) }
              }
              for try await message in inbound.messages(maxSize: 1 << 26) {
                if case .text(let text) = message { connection.receive(text) }
              }
              group.cancelAll()
            }
          }
          connection.lock.withLock {
            connection.closeFrame = frame.map { "\($0.closeCode): \($0.reason ?? "")" }
          }
          connection.upgraded(Failure(description: "closed before the upgrade"))
        } catch {
          connection.upgraded(error)
        }
        connection.end()
      }
      connection.lock.withLock { connection.task = task }
    }
    // Everything the lane does from now on arrives as `record` messages.
    _ = try await connection.first { $0["type"] as? String == "snapshot" }
    return connection
  }

  /// Every message received so far.
  var messages: [String] { lock.withLock { received } }

  /// The messages received at `range` (clamped to what was received).
  func messages(in range: Range<Int>) -> [String] {
    lock.withLock {
      let upper = min(range.upperBound, received.count)
      let lower = min(range.lowerBound, upper)
      return Array(received[lower..<upper])
    }
  }

  /// Whether the server closed the connection.
  var isClosed: Bool { lock.withLock { closed } }

  /// Sends `text` as one text message.
  func send(_ text: String) {
    outgoing.yield(text)
  }

  /// Sends a command built from `fields`.
  func send(_ fields: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: fields),
      let text = String(data: data, encoding: .utf8)
    else { return }
    send(text)
  }

  /// The first message received (counting from `from`) that `matches`, parsed; waits for
  /// each new message, and throws when the connection closes first, or past ``hangGuard`` (its
  /// expiry means a message that never came, not a slow machine).
  func first(
    from start: Int = 0, where matches: ([String: Any]) -> Bool
  ) async throws -> (index: Int, message: [String: Any]) {
    let deadline = ContinuousClock.now + hangGuard
    // Wakes the waits at the deadline, so that they see it.
    let guarding = Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      self?.wakeWaiters()
    }
    defer { guarding.cancel() }
    var index = start
    while true {
      // Only what arrived since the last look: copying everything on each look would cost the
      // tests beside this one their share of the two cores.
      let (fresh, isClosed) = lock.withLock {
        (index < received.count ? Array(received[index...]) : [], closed)
      }
      for text in fresh {
        if let object = InspectorConnection.parse(text), matches(object) { return (index, object) }
        index += 1
      }
      if isClosed {
        let frame = lock.withLock { closeFrame } ?? "no close frame"
        throw Failure(description: "the connection closed (\(frame)); got \(fresh.suffix(3))")
      }
      guard ContinuousClock.now < deadline else {
        throw Failure(
          description: "no such message within the hang guard; last messages: "
            + "\(messages(in: max(0, index - 3)..<index))")
      }
      await arrival(after: index, until: deadline)
    }
  }

  /// Returns once the server closed the connection; throws past ``hangGuard`` (its expiry means
  /// a connection that stays open).
  func closedByServer() async throws {
    do {
      _ = try await first(from: .max) { _ in false }
    } catch  where isClosed {
      return
    }
  }

  /// The reply to the command with `id`.
  func reply(to id: Int) async throws -> [String: Any] {
    try await first {
      ($0["id"] as? NSNumber)?.intValue == id && $0["type"] as? String != "record"
    }.message
  }

  /// Closes the connection and waits until it is down.
  func close() async {
    outgoing.finish()
    let task = lock.withLock { self.task }
    task?.cancel()
    await task?.value
  }

  static func parse(_ text: String) -> [String: Any]? {
    guard let data = text.data(using: .utf8) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
  }

  private func upgraded(_ error: (any Error)?) {
    let waiting = lock.withLock {
      defer { upgrade = nil }
      return upgrade
    }
    if let error { waiting?.resume(throwing: error) } else { waiting?.resume() }
  }

  private func receive(_ text: String) {
    let waiting = lock.withLock {
      received.append(text)
      defer { waiters.removeAll() }
      return waiters
    }
    for waiter in waiting { waiter.resume() }
  }

  private func end() {
    lock.withLock { closed = true }
    wakeWaiters()
  }

  /// Returns once more than `count` messages arrived, or the connection closed, or
  /// ``wakeWaiters()`` was called, or at once when `deadline` passed.
  private func arrival(after count: Int, until deadline: ContinuousClock.Instant) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = lock.withLock {
        // Under the lock: a wake at the deadline that came before this point is not missed.
        if received.count > count || closed || ContinuousClock.now >= deadline { return true }
        waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Wakes every wait for a message, which then looks again.
  private func wakeWaiters() {
    let waiting = lock.withLock {
      defer { waiters.removeAll() }
      return waiters
    }
    for waiter in waiting { waiter.resume() }
  }
}
