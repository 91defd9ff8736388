/// Who may load the page and open the WebSocket: a request to the inspector's own loopback
/// address (so a DNS-rebinding page cannot reach it under another name), from a page of the
/// inspector's own origin (so another site's page cannot connect), with the token (so another
/// local user cannot).
struct AccessCheck: Sendable {
  let token: String
  let port: Int

  /// The `Host` values the inspector answers to.
  var hosts: Set<String> {
    ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
  }

  /// Whether a request names the inspector's host, with or without the port (`nil`: no
  /// `Host`, as some tools send).
  func allowsHost(_ host: String?) -> Bool {
    guard let host else { return true }
    let name = host.lowercased()
    return hosts.contains(name) || ["127.0.0.1", "localhost", "[::1]"].contains(name)
  }

  /// Whether a WebSocket with these `Origin` values may connect: none (not a browser), the
  /// inspector's own page, or a WebSocket client's own `ws://` origin on loopback. A page from
  /// any other site, or from another port of this machine, may not.
  func allowsOrigins(_ origins: [String]) -> Bool {
    origins.allSatisfy { origin in
      let value = origin.lowercased()
      return hosts.contains { "http://\($0)" == value }
        || ["ws://127.0.0.1", "ws://localhost", "ws://[::1]"].contains(value)
        || hosts.contains { "ws://\($0)" == value }
    }
  }

  /// Whether `candidate` is the token; compares every byte, whatever differs first.
  func allowsToken(_ candidate: Substring?) -> Bool {
    guard let candidate else { return false }
    let given = Array(candidate.utf8)
    let expected = Array(token.utf8)
    var difference = given.count ^ expected.count
    for index in expected.indices {
      difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
    }
    return difference == 0
  }

  /// A new random token: 128 bits as 32 hexadecimal digits.
  static func makeToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let word = UInt32.random(in: .min ... .max, using: &generator)
      let hex = String(word, radix: 16)
      return String(repeating: "0", count: 8 - hex.count) + hex
    }.joined()
  }
}
