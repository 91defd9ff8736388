import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of a server, whose client sides ``cut()`` closes while
/// the server sides stay open: what a network that drops connections does, the server running
/// their sessions on until it sees them end.
///
/// ```swift
/// let proxy = try await CuttableProxy(to: server.port)
/// configuration.port = proxy.port
/// await proxy.cut()
/// ```
public final class CuttableProxy: Sendable {
  /// The port the proxy listens on.
  public let port: Int
  private let clientSides = Mutex<[any Channel]>([])
  private let sent = Atomic<Int>(0)

  /// The bytes the proxy forwarded from clients to the server so far.
  public var sentToServer: Int { sent.load(ordering: .relaxed) }
  private let running = Mutex<Task<Void, Never>?>(nil)

  /// Listens on a free port of 127.0.0.1 and forwards each connection to `target` on
  /// 127.0.0.1.
  public init(to target: Int) async throws {
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    port = listener.channel.localAddress?.port ?? 0
    let task = Task<Void, Never> { [self] in
      _ = try? await listener.executeThenClose { connections in
        try await withThrowingDiscardingTaskGroup { group in
          for try await client in connections {
            clientSides.withLock { $0.append(client.channel) }
            group.addTask {
              try? await Self.forward(client, to: target) { self.sent.add($0, ordering: .relaxed) }
            }
          }
        }
      }
    }
    running.withLock { $0 = task }
  }

  /// Closes the client side of every connection so far; their server sides stay open until
  /// the server closes them or the proxy ``close()``s.
  public func cut() async {
    let channels = clientSides.withLock { channels in
      defer { channels.removeAll() }
      return channels
    }
    for channel in channels { try? await channel.close() }
  }

  /// Stops the proxy and closes every connection.
  public func close() async {
    let task = running.withLock { $0 }
    task?.cancel()
    await task?.value
  }

  private static func forward(
    _ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to target: Int,
    counting: @escaping @Sendable (Int) -> Void
  ) async throws {
    // The connect timeout is a hang guard: a busy machine may take more than NIO's 10 s.
    let server = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connectTimeout(.minutes(10))
      .connect(host: "127.0.0.1", port: target) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    try await client.executeThenClose { clientIn, clientOut in
      try await server.executeThenClose { serverIn, serverOut in
        try await withThrowingDiscardingTaskGroup { group in
          group.addTask {
            for try await data in serverIn { try? await clientOut.write(data) }
          }
          group.addTask {
            // Ends at the cut: the server side stays open.
            do {
              for try await data in clientIn {
                counting(data.readableBytes)
                try await serverOut.write(data)
              }
            } catch {}
          }
        }
      }
    }
  }
}
