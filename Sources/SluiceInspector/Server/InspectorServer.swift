import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Sluice

/// The inspector's HTTP server: the page at `/`, the protocol's WebSocket at `/ws`, on
/// loopback (see ``AccessCheck`` for who may use them).
final class InspectorServer: Sendable {
  /// The largest WebSocket message read; a longer one closes the connection (1009).
  static let maxMessage = 1 << 20

  let port: Int
  private let group: ServiceGroup
  private let task: Task<Void, Never>

  private init(port: Int, group: ServiceGroup, task: Task<Void, Never>) {
    self.port = port
    self.group = group
    self.task = task
  }

  /// Starts listening on `host:port` (0: a free port) and returns once the server listens.
  static func start(
    host: String, port: Int, token: String, page: PageResources, logger: Logger,
    connect: @escaping @Sendable (WebSocketInboundStream, WebSocketOutboundWriter) async -> Void
  ) async throws(InspectorError) -> InspectorServer {
    let access = Guarded<AccessCheck?>(nil)
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.add(middleware: HostCheck(access: access))
    for (path, file) in page.files {
      router.get(RouterPath(path)) { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-store"
        for (name, value) in securityHeaders {
          if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(
          status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
      }
    }
    router.ws(
      "/ws",
      // A refused upgrade is answered with status 400 and the connection closed, whichever
      // check failed: SwiftNIO's upgrade handler answers so when the upgrader declines, before
      // this error's status could be sent.
      shouldUpgrade: { request, _ in
        guard let check = access.withLock({ $0 }),
          check.allowsOrigins(request.headers[values: .origin]),
          check.allowsToken(request.uri.queryParameters["token"])
        else {
          throw HTTPError(.forbidden, message: "a token and the inspector's origin are needed")
        }
        return .upgrade([:])
      },
      onUpgrade: { inbound, outbound, _ in await connect(inbound, outbound) })

    // The first word wins: the port the server listens on, or why it stopped before.
    let (started, start) = AsyncStream.makeStream(of: Result<Int, InspectorError>.self)
    let application = Application(
      router: router,
      server: .http1WebSocketUpgrade(
        webSocketRouter: router,
        configuration: .init(ws: .init(maxFrameSize: maxMessage))),
      configuration: .init(address: .hostname(host, port: port), serverName: nil),
      onServerRunning: { channel in start.yield(.success(channel.localAddress?.port ?? 0)) },
      logger: logger)
    // Stopped by a graceful shutdown: the server stops listening, then closes the WebSockets
    // (1000, normal closure) and waits for them.
    let group = ServiceGroup(services: [application], logger: logger)
    let task = Task {
      var reason = "the server stopped before it listened"
      do { try await group.run() } catch { reason = "\(error)" }
      start.yield(
        .failure(InspectorError(.cannotListen, "cannot listen on \(host):\(port): \(reason)")))
      start.finish()
    }
    switch await started.first(where: { _ in true }) {
    case .success(let boundPort)?:
      access.withLock { $0 = AccessCheck(token: token, port: boundPort) }
      return InspectorServer(port: boundPort, group: group, task: task)
    case .failure(let error)?:
      task.cancel()
      throw error
    case nil:
      task.cancel()
      throw InspectorError(.cannotListen, "cannot listen on \(host):\(port)")
    }
  }

  /// Stops listening and closes the connections, without waiting.
  func cancel() {
    Task { [group] in await group.triggerGracefulShutdown() }
  }

  /// Returns once the server is down (after ``cancel()``).
  func stopped() async {
    await task.value
  }
}

/// What every page response says to the browser: no sniffing, no referrer (the URL holds the
/// token), no framing, nothing loaded from elsewhere.
private let securityHeaders = [
  ("X-Content-Type-Options", "nosniff"),
  ("Referrer-Policy", "no-referrer"),
  (
    "Content-Security-Policy",
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
  ),
]

/// Refuses requests whose `Host` is not the inspector's own (DNS rebinding).
private struct HostCheck: RouterMiddleware {
  typealias Context = BasicWebSocketRequestContext
  let access: Guarded<AccessCheck?>

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let check = access.withLock({ $0 }), check.allowsHost(request.head.authority) else {
      throw HTTPError(.forbidden, message: "not the inspector's host")
    }
    return try await next(request, context)
  }
}
