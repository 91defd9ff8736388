import Foundation
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Sluice

/// A live view of a lane in the browser: every action with its dispatch site and cause, the
/// states before and after it, "why did this update", time travel in a fork, and a recorded
/// range turned into a test.
///
/// ```swift
/// let inspector = try await Inspector.start(dispatcher)
/// print("Open \(inspector.url)")
/// ```
///
/// The inspector serves its page and WebSocket on loopback only, with a random token in the
/// URL; another local user or another site's page cannot connect. It records the last
/// ``Configuration/capacity`` steps (older ones are counted by type), never sends what
/// ``Configuration/redaction`` marks sensitive, and never changes the live state except when
/// the page applies a state, through the lane.
///
/// While an inspector is attached, every dispatch on the lane is queued with its site and every
/// store reports its steps: dispatch is slower (see `inspector.attached` in the benchmarks).
/// With none attached, dispatch pays nothing for it. Call ``stop()`` when done, or drop the
/// inspector: it then stops as ``stop()`` does, without waiting. In an app that runs a
/// `ServiceGroup`, add it as a `Service`: ``run()`` serves until the group shuts down.
public final class Inspector: Service, Sendable {
  /// How an inspector listens and what it records.
  public struct Configuration: Sendable {
    /// The loopback address to listen on: `127.0.0.1` (the default), `::1` or `localhost`.
    public var host: String
    /// The port; 0 (the default) picks a free one.
    public var port: Int
    /// How many steps the inspector keeps (1,000 by default, at most 1,000,000); older ones
    /// are summarized.
    public var capacity: Int
    /// How many clients (pages, other WebSocket clients) may be connected at once: 8 by
    /// default. One more is let in and closed at once, with close code 1008 (policy violation)
    /// and a reason that says so, which the page shows.
    public var clientLimit: Int
    /// What is never sent.
    public var redaction: Redaction
    /// How a recorded range becomes a test file.
    public var testExport: TestExport
    /// The token the page and clients must give; a random one when `nil` (the default).
    public var token: String?
    /// The clock each step's duration is measured on: the continuous clock by default; a test
    /// passes one it moves itself. The inspector never waits on it: it neither paces, batches
    /// nor times out.
    public var clock: any Clock<Duration>
    /// Where the server (Hummingbird) reports what happens beside the page and its clients: a
    /// `Logger` labelled `sluice.inspector` at level `warning` by default, which writes where
    /// the app's logging system does; pass one of the app's at a lower level to see more.
    public var logger: Logger

    /// Creates a configuration.
    public init(
      host: String = "127.0.0.1", port: Int = 0, capacity: Int = 1_000, clientLimit: Int = 8,
      redaction: Redaction = .none, testExport: TestExport = TestExport(), token: String? = nil,
      clock: any Clock<Duration> = ContinuousClock(),
      logger: Logger = {
        var logger = Logger(label: "sluice.inspector")
        logger.logLevel = .warning
        return logger
      }()
    ) {
      self.host = host
      self.port = port
      self.capacity = capacity
      self.clientLimit = clientLimit
      self.redaction = redaction
      self.testExport = testExport
      self.token = token
      self.clock = clock
      self.logger = logger
    }
  }

  /// The page's address, with the token: open it in a browser.
  public let url: URL
  /// The port the inspector listens on.
  public let port: Int
  /// The token clients must give (`?token=` in the URL).
  public let token: String
  /// The WebSocket's address, with the token, for other clients.
  public var webSocketURL: URL {
    URL(string: "ws://\(authority)/ws?token=\(token)") ?? url
  }

  /// `127.0.0.1:PORT`, `[::1]:PORT` or `localhost:PORT`: the host the server listens on.
  private let authority: String

  let recorder: Recorder
  private let writer: TestFileWriter
  let server: InspectorServer
  /// The attachment to the lane until ``stop()``: its subscription detaches the inspector when
  /// the inspector is dropped unstopped; `detach` is what `stop()` awaits.
  private let attachment: Guarded<Attachment?>

  private typealias Attachment = (subscription: Subscription, detach: @Sendable () async -> Void)

  private init(
    url: URL, port: Int, token: String, recorder: Recorder, writer: TestFileWriter,
    server: InspectorServer, attachment: Attachment
  ) {
    self.url = url
    self.port = port
    self.token = token
    authority =
      url.host.map { $0.contains(":") ? "[\($0)]:\(port)" : "\($0):\(port)" }
      ?? "127.0.0.1:\(port)"
    self.recorder = recorder
    self.writer = writer
    self.server = server
    self.attachment = Guarded(attachment)
  }

  /// Attaches an inspector to `dispatcher`'s lane and starts its server.
  ///
  /// - Throws: ``InspectorError`` with ``InspectorError/Code/alreadyAttached`` when the lane
  ///   has an inspector, or ``InspectorError/Code/cannotListen`` when the host is not loopback
  ///   or the port cannot be had.
  public static func start(
    _ dispatcher: Dispatcher, configuration: Configuration = Configuration()
  ) async throws(InspectorError) -> Inspector {
    guard ["127.0.0.1", "::1", "localhost"].contains(configuration.host) else {
      throw InspectorError(
        .cannotListen,
        "the inspector listens on loopback only (127.0.0.1, ::1 or localhost), not "
          + "\(configuration.host)")
    }
    let token = configuration.token ?? AccessCheck.makeToken()
    guard !token.isEmpty, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
      throw InspectorError(.cannotListen, "a token is letters and digits, and not empty")
    }
    let page = try PageResources.load()
    let redaction = configuration.redaction
    guard (1...1_000_000).contains(configuration.capacity) else {
      throw InspectorError(
        .cannotListen, "capacity is 1 to 1,000,000 records, not \(configuration.capacity)")
    }
    let clientLimit = configuration.clientLimit
    guard clientLimit >= 1 else {
      throw InspectorError(.cannotListen, "clientLimit is at least 1, not \(clientLimit)")
    }
    let clients = Guarded(0)
    let recorder = Recorder(
      redaction: redaction, capacity: configuration.capacity, clock: configuration.clock)
    guard let attachment = await dispatcher.attach(inspector: recorder) else {
      throw InspectorError(.alreadyAttached, "the lane '\(dispatcher.label)' has an inspector")
    }
    let lane = dispatcher.label
    let replayer = Replayer()
    let writer = TestFileWriter(export: configuration.testExport, redaction: redaction, lane: lane)
    let server: InspectorServer
    do {
      server = try await InspectorServer.start(
        host: configuration.host, port: configuration.port, token: token, page: page,
        logger: configuration.logger
      ) { inbound, outbound in
        let admitted = clients.withLock { count -> Bool in
          guard count < clientLimit else { return false }
          count += 1
          return true
        }
        guard admitted else {
          let reason = "the inspector serves at most \(clientLimit) client(s) at once; close one"
          try? await outbound.close(.policyViolation, reason: reason)
          return
        }
        await Inspector.serve(
          inbound, outbound, recorder: recorder, redaction: redaction, lane: lane, writer: writer,
          replayer: replayer)
        clients.withLock { $0 -= 1 }
      }
    } catch {
      await attachment.detach()
      throw error
    }
    let host = configuration.host == "::1" ? "[::1]" : configuration.host
    let address = "http://\(host):\(server.port)/?token=\(token)"
    guard let url = URL(string: address) else {
      await attachment.detach()
      server.cancel()
      await server.stopped()
      throw InspectorError(.cannotListen, "no URL for \(address)")
    }
    return Inspector(
      url: url, port: server.port, token: token, recorder: recorder, writer: writer,
      server: server, attachment: attachment)
  }

  /// The Swift Testing file that replays records `from` through `through` (both still kept)
  /// through `TestStore`, as the page's "Download Swift test" gives it: its suggested file name
  /// and its source (see ``TestExport``).
  ///
  /// - Throws: ``InspectorError`` when a record is not kept, the range holds a transaction or a
  ///   replacement of a store it changed, a value cannot be written as Swift, or a value is
  ///   redacted.
  public func testFile(from: UInt64, through: UInt64) throws(InspectorError) -> (
    name: String, source: String
  ) {
    try writer.file(from: from, through: through, snapshot: recorder.snapshot())
  }

  /// Detaches from the lane (dispatch is as fast as before), closes the connections and stops
  /// the server. Calling it again does nothing.
  public func stop() async {
    let attached = attachment.withLock { attachment -> Attachment? in
      defer { attachment = nil }
      return attachment
    }
    guard let attached else { return }
    // Suspends until the lane ran the detachment; the subscription then has nothing left to do.
    await attached.detach()
    attached.subscription.cancel()
    recorder.finish()
    server.cancel()
    await server.stopped()
  }

  /// Serves until the task running it is cancelled or its `ServiceGroup` shuts down
  /// gracefully, then stops as ``stop()`` does.
  public func run() async {
    try? await gracefulShutdown()
    await stop()
  }

  /// A dropped inspector stops as ``stop()`` does, without waiting: the subscription queues the
  /// detachment from the lane (held by another thread, the lane runs it when it is free), the
  /// clients' streams end, and the server stops listening and closes the connections.
  deinit {
    recorder.finish()
    server.cancel()
  }

  /// The close code a client too far behind gets: 1013, "try again later". The page then
  /// reconnects and starts over from a snapshot.
  static let fellBehindCode: UInt16 = 1013

  /// How many bytes of messages may wait for one client: 64 MiB.
  static let outboundByteLimit = 64 << 20

  /// One client's connection: hello, the snapshot, then records as they come and replies to
  /// its commands, all through one writer.
  ///
  /// A client that stops reading (its socket stalls) while messages keep coming is not sent a
  /// log with holes: once `max(capacity * 2, 4096) + 64` messages, or 64 MiB, wait for it, the
  /// connection is closed after those, with close code 1013 (`fellBehindCode`; see
  /// ``OutboundQueue``).
  private static func serve(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, recorder: Recorder,
    redaction: Redaction, lane: String, writer: TestFileWriter, replayer: Replayer
  ) async {
    let queue = OutboundQueue(
      limit: max(recorder.capacity * 2, 4_096) + 64, byteLimit: Inspector.outboundByteLimit)
    let send: @Sendable (String) -> Void = { queue.send($0) }
    let client = InspectorClient(
      recorder: recorder, redaction: redaction, lane: lane, testWriter: writer, replayer: replayer,
      send: send)
    // Room for a burst: a follower that falls behind starts over from a snapshot, which costs
    // more than the events it holds.
    let following = recorder.follow(buffer: max(recorder.capacity, 1_024) + 64)
    await client.connected(with: following.snapshot)
    send(InspectorMessage.hello(lane: lane, capacity: recorder.capacity))
    send(InspectorMessage.snapshot(following.snapshot, redaction: redaction))
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await text in queue.messages {
          queue.taken(text)
          do {
            try await outbound.write(.text(text))
          } catch {
            return
          }
        }
        if queue.overflowed {
          try? await outbound.close(
            .unknown(fellBehindCode), reason: "too far behind; reconnect for a new snapshot")
        }
      }
      group.addTask {
        for await event in following.events { await client.deliver(event) }
      }
      do {
        for try await message in inbound.messages(maxSize: InspectorServer.maxMessage) {
          switch message {
          case .text(let text): await client.handle(text)
          case .binary:
            send(InspectorMessage.error(.malformed, "commands are text messages", id: nil))
          }
        }
      } catch {
        // The connection closed or sent what WebSocket does not allow: it ends here.
      }
      following.stop()
      queue.finish()
      group.cancelAll()
    }
  }
}
