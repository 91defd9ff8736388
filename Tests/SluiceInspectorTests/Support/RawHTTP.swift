import Foundation
import SluiceTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One HTTP/1.1 request written by hand on a TCP socket, for what a WebSocket client does not
/// show: the status line of a refused upgrade.
enum RawHTTP {
  /// The status code of the server's answer to a WebSocket upgrade of `target` on loopback
  /// port `port`, with `Origin: origin` when given and `Host: host` (the inspector's own
  /// address by default); `nil` when nothing readable came back.
  ///
  /// The socket is read on a thread of its own, with one-minute send and receive timeouts: a
  /// hang guard, whose expiry means a server that never answers.
  static func upgradeStatus(
    port: Int, target: String, origin: String? = nil, host: String? = nil
  ) async -> Int? {
    var request =
      "GET \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\n"
      + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      + "Sec-WebSocket-Version: 13\r\n"
    if let origin { request += "Origin: \(origin)\r\n" }
    request += "\r\n"
    let bytes = Array(request.utf8)
    return await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: status(port: port, sending: bytes)) }.start()
    }
  }

  private static func status(port: Int, sending request: [UInt8]) -> Int? {
    #if canImport(Glibc) || canImport(Musl)
      let socketType = Int32(SOCK_STREAM.rawValue)
    #else
      let socketType = SOCK_STREAM
    #endif
    let descriptor = socket(AF_INET, socketType, 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: Int(hangGuardSeconds), tv_usec: 0)
    let size = socklen_t(MemoryLayout<timeval>.size)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0, send(descriptor, request, request.count, 0) == request.count else {
      return nil
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1_024)
    while !received.contains(UInt8(ascii: "\n")) {
      let count = recv(descriptor, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      received += buffer[0..<count]
    }
    // "HTTP/1.1 403 Forbidden"
    let line = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? ""
    let fields = line.split(separator: " ")
    return fields.count >= 2 ? Int(fields[1]) : nil
  }
}
